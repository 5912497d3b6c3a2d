#!/usr/bin/env bash
# Real clients through the gateway with a Grok model (the xAI provider): the OpenAI Python and
# Node SDKs' stream helpers, streaming and non-stream responses.create, against the simulator's
# Grok CLI proxy; the account comes from a Grok CLI auth.json. Prints one `ok - …` line per check.
# `@vibe-kit/grok-cli` waits for `/v1/chat/completions` (issue 20).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$REPO/scripts/e2e.d/gateway"
# shellcheck source=../lib/services.sh
source "$REPO/scripts/lib/services.sh"
# shellcheck source=../lib/clients.sh
source "$REPO/scripts/lib/clients.sh"
clients_install || { echo "not ok - installing the pinned clients failed (see above)" >&2; exit 1; }
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
WORK="$(mktemp -d)"
fail() { echo "not ok - $*" >&2; exit 1; }
# shellcheck source=gateway/start.sh
source "$HERE/start.sh"
SB_STOP_ACTIONS+=("gateway_stop; rm -rf '$WORK'")

gateway_start "xai:grok-e2e-1"
echo "ok - gateway $GW with one xAI account imported from a Grok CLI auth.json"
"$CLIENTS_PYTHON" "$HERE/grok_check.py" "$GW" "$KEY" || fail "python SDK checks (grok)"
NODE_PATH="$CLIENTS_NODE_MODULES" node "$HERE/grok_check.mjs" "$GW" "$KEY" || fail "node SDK checks (grok)"
echo "ok - grok e2e over HTTP complete"
