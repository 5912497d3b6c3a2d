#!/usr/bin/env bash
# Real clients through the gateway over HTTP: Codex CLI (`codex exec`, SSE, with a tool round
# trip), the OpenAI Python and Node SDKs (stream helper, streaming and non-stream create,
# models.list) and the errors each client shows for a bad key, an unknown model and an
# exhausted pool. Prints one `ok - …` line per check.
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

gateway_start "acct-e2e-1,acct-e2e-2"
echo "ok - gateway $GW provisioned through the command line (2 accounts, 1 key)"

# ---- Codex CLI as an API client of the gateway -------------------------------------------------
home="$(mktemp -d "$WORK/codex.XXXXXX")"
cat >"$home/config.toml" <<TOML
model = "gpt-5.4"
model_provider = "switchboard"
[model_providers.switchboard]
name = "Switchboard"
base_url = "$GW/v1"
wire_api = "responses"
env_key = "SWITCHBOARD_KEY"
request_max_retries = 0
stream_max_retries = 0
TOML
run_codex() { # $1 = prompt; prints the last message
  local out="$home/last.txt"
  (cd "$WORK" && CODEX_HOME="$home" SWITCHBOARD_KEY="${2:-$KEY}" timeout 120 "$CODEX_BIN" exec --skip-git-repo-check \
    --output-last-message "$out" "$1" </dev/null >"$home/stdout.log" 2>"$home/stderr.log") || return 1
  cat "$out"
}
answer="$(run_codex $'say hello\nsim: text="hello through the gateway"')" || fail "codex exec failed: $(tail -n 20 "$home/stderr.log")"
[[ "$answer" == "hello through the gateway" ]] || fail "codex answer was: $answer"
echo "ok - codex $("$CODEX_BIN" --version | awk '{print $2}') exec through the gateway over HTTP SSE"

answer="$(run_codex $'run the tool\nsim: tool=exec_command args=\'{"cmd":"echo gw-tool-ok"}\'')" \
  || fail "codex tool round trip failed: $(tail -n 20 "$home/stderr.log")"
[[ "$answer" == *"gw-tool-ok"* ]] || fail "codex tool round trip answer was: $answer"
echo "ok - codex exec tool round trip through the gateway (exec_command output posted back, final answer)"

if run_codex "hi" "sk-sb-not-a-key" >/dev/null 2>&1; then fail "codex accepted a bad key"; fi
grep -qi "invalid_api_key\|401\|Incorrect API key" "$home/stderr.log" "$home/stdout.log" \
  || fail "codex did not show the 401: $(tail -n 5 "$home/stderr.log")"
echo "ok - codex with a bad key exits non-zero showing the 401"

# ---- OpenAI SDKs -------------------------------------------------------------------------------
"$CLIENTS_PYTHON" "$HERE/sdk_check.py" "$GW" "$KEY" || fail "python SDK checks"
NODE_PATH="$CLIENTS_NODE_MODULES" node "$HERE/sdk_check.mjs" "$GW" "$KEY" || fail "node SDK checks"

# ---- An exhausted pool -------------------------------------------------------------------------
for id in acct-e2e-1 acct-e2e-2; do
  curl -fsS -X PATCH "$SIM/_sim/accounts/$id" -H 'content-type: application/json' \
    -d '{"primary_used_percent":100,"secondary_used_percent":100}' >/dev/null
done
"$CLIENTS_PYTHON" "$HERE/exhausted_check.py" "$GW" "$KEY" || fail "exhausted pool check"
echo "ok - gateway e2e over HTTP complete"
