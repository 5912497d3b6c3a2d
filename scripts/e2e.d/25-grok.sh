#!/usr/bin/env bash
# Real clients through the gateway with a Grok model (the xAI provider): the OpenAI Python and
# Node SDKs' stream helpers, streaming and non-stream responses.create, against the simulator's
# Grok CLI proxy, and `@vibe-kit/grok-cli` through `/v1/chat/completions` with the Grok model; the
# account comes from a Grok CLI auth.json. Prints one `ok - …` line per check.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$REPO/scripts/e2e.d/gateway"
# shellcheck source=../lib/services.sh
source "$REPO/scripts/lib/services.sh"
# shellcheck source=../lib/clients.sh
source "$REPO/scripts/lib/clients.sh"
clients_install || { echo "not ok - installing the pinned clients failed (see above)" >&2; exit 1; }
clients_install_grok || { echo "not ok - installing @vibe-kit/grok-cli failed (see above)" >&2; exit 1; }
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

# ---- @vibe-kit/grok-cli: Chat Completions converted to Responses, served by the xAI provider ----
grok_home="$(mktemp -d "$WORK/grok.XXXXXX")"
answer="$(cd "$WORK" && HOME="$grok_home" timeout 120 "$GROK_BIN" -p "sim: text='grok cli on a grok model'" \
  -u "$GW/v1" -k "$KEY" -m grok-4.5 </dev/null 2>"$grok_home/stderr.log")" \
  || fail "grok -p (grok-4.5) failed: $(tail -n 20 "$grok_home/stderr.log")"
[[ "$answer" == *"grok cli on a grok model"* ]] || fail "grok answer (grok-4.5) was: $answer"
echo "ok - @vibe-kit/grok-cli $CLIENTS_GROK_CLI_VERSION -p answers with grok-4.5 through /v1/chat/completions"
echo "ok - grok e2e over HTTP complete"
