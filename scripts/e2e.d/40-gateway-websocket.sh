#!/usr/bin/env bash
# Responses over WebSocket through the gateway with real clients: Codex CLI in WebSocket mode
# (prewarm, incremental turns with previous_response_id, a tool round trip), the OpenAI Python
# and Node WebSocket clients, and an upstream that refuses the WebSocket handshake (the client
# still gets its answer, over HTTP SSE upstream). Prints one `ok - …` line per check.
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
requests() { curl -fsS "$SIM/_sim/requests"; }
json() { "$CLIENTS_PYTHON" -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {'d': d}))" "$1"; }

gateway_start "acct-ws-1"
echo "ok - gateway $GW provisioned"

home="$(mktemp -d "$WORK/codex.XXXXXX")"
cat >"$home/config.toml" <<TOML
model = "gpt-5.4"
model_provider = "switchboard"
[model_providers.switchboard]
name = "Switchboard"
base_url = "$GW/v1"
wire_api = "responses"
env_key = "SWITCHBOARD_KEY"
supports_websockets = true
request_max_retries = 0
stream_max_retries = 0
TOML
run_codex() {
  (cd "$WORK" && CODEX_HOME="$home" SWITCHBOARD_KEY="$KEY" timeout 120 "$CODEX_BIN" exec --skip-git-repo-check \
    --output-last-message "$home/last.txt" "$1" </dev/null >"$home/stdout.log" 2>"$home/stderr.log") || return 1
  cat "$home/last.txt"
}

curl -fsS -X DELETE "$SIM/_sim/requests" >/dev/null
answer="$(run_codex $'run the tool\nsim: tool=exec_command args=\'{"cmd":"echo gw-ws-tool-ok"}\'')" \
  || fail "codex over WebSocket failed: $(tail -n 20 "$home/stderr.log")"
[[ "$answer" == *"gw-ws-tool-ok"* ]] || fail "codex WebSocket answer was: $answer"
frames="$(requests | json "len([r for r in d if r['method']=='WS'])")"
chained="$(requests | json "len([r for r in d if r['method']=='WS' and 'previous_response_id' in r['body']])")"
posts="$(requests | json "len([r for r in d if r['method']=='POST' and r['path'].endswith('/codex/responses')])")"
[[ "$frames" -ge 3 && "$chained" -ge 2 && "$posts" == 0 ]] \
  || fail "expected >=3 upstream WebSocket frames, >=2 chained and no HTTP; saw $frames/$chained/$posts"
echo "ok - codex exec over WebSocket through the gateway: prewarm, incremental turns on one upstream socket, tool round trip ($frames frames)"

"$CLIENTS_PYTHON" "$HERE/ws_check.py" "$GW" "$KEY" || fail "python WebSocket check"
NODE_PATH="$CLIENTS_NODE_MODULES" node "$HERE/ws_check.mjs" "$GW" "$KEY" || fail "node WebSocket check"

# The upstream refuses WebSocket upgrades (426): clients still get their answer, served over
# HTTP SSE upstream on the same account.
curl -fsS -X PATCH "$SIM/_sim/accounts/acct-ws-1" -H 'content-type: application/json' -d '{"ws_refused":true}' >/dev/null
curl -fsS -X DELETE "$SIM/_sim/requests" >/dev/null
rm -f "$home/last.txt"
answer="$(run_codex $'say hi\nsim: text="answered after a refused upgrade"')" \
  || fail "codex with a refused upstream upgrade failed: $(tail -n 20 "$home/stderr.log")"
[[ "$answer" == "answered after a refused upgrade" ]] || fail "codex answer after the refused upgrade was: $answer"
posts="$(requests | json "len([r for r in d if r['method']=='POST' and r['path'].endswith('/codex/responses')])")"
[[ "$posts" -ge 1 ]] || fail "no upstream HTTP call after the refused upgrade"
"$CLIENTS_PYTHON" "$HERE/ws_check.py" "$GW" "$KEY" --upstream-http || fail "python WebSocket check after the refused upgrade"
echo "ok - upstream handshake refused: Codex and the Python WebSocket client still get their answers (HTTP SSE upstream)"
echo "ok - gateway e2e over WebSocket complete"
