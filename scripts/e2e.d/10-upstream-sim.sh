#!/usr/bin/env bash
# Real clients against the upstream simulator: Codex CLI (HTTP SSE, WebSocket, 426 fallback,
# tool round trips) as a ChatGPT-backend client, and the OpenAI Python and Node SDKs against the
# simulator's xAI-style /xai/v1 (plus their WebSocket clients against the Codex backend).
# Prints one `ok - …` line per check; any failure stops the script with a non-zero status.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$REPO/scripts/e2e.d/upstream-sim"
# shellcheck source=../lib/clients.sh
source "$REPO/scripts/lib/clients.sh"
clients_install || { echo "not ok - installing the pinned clients failed (see above)" >&2; exit 1; }

export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
WORK="$(mktemp -d)"
SIM_PID=""
cleanup() {
    if [[ -n "$SIM_PID" ]]; then kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "not ok - $*" >&2; exit 1; }
json() { "$CLIENTS_PYTHON" -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {'d': d, 'json': json}))" "$1"; }

# shellcheck source=../lib/build.sh
source "$REPO/scripts/lib/build.sh"
(cd "$REPO" && sb_build -p upstream-sim --bin upstream-sim)
"$REPO/target/debug/upstream-sim" --listen 127.0.0.1:0 >"$WORK/sim.out" 2>"$WORK/sim.err" &
SIM_PID=$!
for _ in $(seq 1 100); do
    [[ -s "$WORK/sim.out" ]] && break
    kill -0 "$SIM_PID" 2>/dev/null || fail "upstream-sim exited: $(cat "$WORK/sim.err")"
    sleep 0.1
done
SIM="$(head -n1 "$WORK/sim.out")"
[[ "$SIM" == http://127.0.0.1:* ]] || fail "upstream-sim did not print its URL"
echo "ok - upstream-sim listening on $SIM"

add_account() { curl -fsS -X POST "$SIM/_sim/accounts" -H 'content-type: application/json' -d "$1"; }
requests() { curl -fsS "$SIM/_sim/requests"; }
clear_requests() { curl -fsS -X DELETE "$SIM/_sim/requests" >/dev/null; }

# ---- Codex CLI as a ChatGPT-backend client --------------------------------------------------
codex_home() { # $1 = account json, $2 = extra provider lines
    local home
    home="$(mktemp -d "$WORK/codex.XXXXXX")"
    echo "$1" | json "json.dumps(d['tokens']['codex_auth_json'])" >"$home/auth.json"
    cat >"$home/config.toml" <<TOML
model = "gpt-5.4"
model_provider = "sim"
chatgpt_base_url = "$SIM/backend-api"
[model_providers.sim]
name = "upstream-sim"
base_url = "$SIM/backend-api/codex"
wire_api = "responses"
requires_openai_auth = true
request_max_retries = 0
stream_max_retries = 0
$2
TOML
    echo "$home"
}

run_codex() { # $1 = CODEX_HOME, $2 = prompt; prints the last message
    local out="$1/last.txt"
    (cd "$WORK" && CODEX_HOME="$1" timeout 120 "$CODEX_BIN" exec --skip-git-repo-check \
        --output-last-message "$out" "$2" </dev/null >"$1/stdout.log" 2>"$1/stderr.log") \
        || fail "codex exec failed (CODEX_HOME=$1): $(tail -n 20 "$1/stderr.log")"
    cat "$out"
}

HTTP_ACCOUNT="$(add_account '{"id":"acct-codex-http","plan":"pro"}')"
home="$(codex_home "$HTTP_ACCOUNT" "")"
answer="$(run_codex "$home" $'say hello\nsim: text="hello from the simulator"')"
[[ "$answer" == "hello from the simulator" ]] || fail "codex HTTP answer was: $answer"
echo "ok - codex $("$CODEX_BIN" --version | awk '{print $2}') exec over HTTP SSE prints the scripted answer"

clear_requests
answer="$(run_codex "$home" $'run the tool\nsim: tool=exec_command args=\'{"cmd":"echo sim-tool-ok"}\'')"
[[ "$answer" == *"sim-tool-ok"* ]] || fail "codex tool round trip answer was: $answer"
posts="$(requests | json "sum(1 for r in d if r['method']=='POST' and r['path'].endswith('/codex/responses'))")"
[[ "$posts" == 2 ]] || fail "expected 2 POST /codex/responses for the tool round trip, saw $posts"
requests | json "[r for r in d if r['path'].endswith('/codex/responses')][-1]['body']" | grep -q '"function_call_output"' \
    || fail "second request carries no function_call_output"
echo "ok - codex exec HTTP tool round trip: exec_command ran, its output came back, final answer printed"

WS_ACCOUNT="$(add_account '{"id":"acct-codex-ws","plan":"plus"}')"
home="$(codex_home "$WS_ACCOUNT" "supports_websockets = true")"
clear_requests
answer="$(run_codex "$home" $'run the tool\nsim: tool=exec_command args=\'{"cmd":"echo sim-ws-ok"}\'')"
[[ "$answer" == *"sim-ws-ok"* ]] || fail "codex WebSocket answer was: $answer"
frames="$(requests | json "len([r for r in d if r['method']=='WS'])")"
chained="$(requests | json "len([r for r in d if r['method']=='WS' and 'previous_response_id' in r['body']])")"
[[ "$frames" -ge 3 && "$chained" -ge 2 ]] || fail "expected >=3 WebSocket frames (prewarm + 2 chained), saw $frames/$chained"
echo "ok - codex exec over WebSocket: prewarm, previous_response_id chain and tool round trip ($frames frames)"

REFUSED_ACCOUNT="$(add_account '{"id":"acct-codex-nows","plan":"plus","ws_refused":true}')"
home="$(codex_home "$REFUSED_ACCOUNT" "supports_websockets = true")"
clear_requests
answer="$(run_codex "$home" $'hi\nsim: text="fell back to http"')"
[[ "$answer" == "fell back to http" ]] || fail "codex 426 fallback answer was: $answer"
requests | json "[r['method'] for r in d if r['path'].endswith('/codex/responses')]" | grep -q "'POST'" \
    || fail "no HTTP POST after the 426"
echo "ok - codex falls back from WebSocket (426) to HTTP SSE and answers"

# ---- OpenAI SDKs ------------------------------------------------------------------------------
XAI_ACCOUNT="$(add_account '{"id":"acct-xai","provider":"xai"}')"
XAI_TOKEN="$(echo "$XAI_ACCOUNT" | json "d['tokens']['access_token']")"
SDK_ACCOUNT="$(add_account '{"id":"acct-sdk-ws","plan":"pro"}')"
SDK_TOKEN="$(echo "$SDK_ACCOUNT" | json "d['tokens']['access_token']")"
"$CLIENTS_PYTHON" "$HERE/sdk_check.py" "$SIM" "$XAI_TOKEN" "$SDK_TOKEN" acct-sdk-ws || fail "python SDK checks"
NODE_PATH="$CLIENTS_NODE_MODULES" node "$HERE/sdk_check.mjs" "$SIM" "$XAI_TOKEN" "$SDK_TOKEN" acct-sdk-ws || fail "node SDK checks"
echo "ok - upstream-sim e2e complete"
