#!/usr/bin/env bash
# The compatibility surface with real clients (issue 20): the OpenAI Python and Node SDKs'
# chat.completions.create (non-stream, stream with an emoji stop sequence, tool round trip),
# `@vibe-kit/grok-cli` (Chat Completions), and Codex CLI configured as a ChatGPT-backend client of
# the gateway (`/backend-api/codex/*`, `codex exec`) with the pooled `/backend-api/wham/usage`.
# Prints one `ok - …` line per check.
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
json() { "$CLIENTS_PYTHON" -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {'d': d, 'json': json}))" "$1"; }
# shellcheck source=gateway/start.sh
source "$HERE/start.sh"
SB_STOP_ACTIONS+=("gateway_stop; rm -rf '$WORK'")

# Quota facts reach the snapshot within a second (the pooled usage check reads them).
export SWITCHBOARD_ENGINE_SNAPSHOT_RELOAD_SECONDS=1 SWITCHBOARD_PROVIDERS_QUOTA_PROBE_PERIOD_SECONDS=1
gateway_start "acct-compat-1,acct-compat-2"
echo "ok - gateway $GW provisioned (2 accounts, 1 key)"

# ---- Chat Completions through the SDKs -------------------------------------------------------
"$CLIENTS_PYTHON" "$HERE/chat_check.py" "$GW" "$KEY" || fail "python SDK chat checks"
NODE_PATH="$CLIENTS_NODE_MODULES" node "$HERE/chat_check.mjs" "$GW" "$KEY" || fail "node SDK chat checks"

# ---- @vibe-kit/grok-cli (non-stream Chat Completions, sends xAI's search_parameters) -----------
grok_home="$(mktemp -d "$WORK/grok.XXXXXX")"
answer="$(cd "$WORK" && HOME="$grok_home" timeout 120 "$GROK_BIN" -p "sim: text='grok through the gateway'" \
  -u "$GW/v1" -k "$KEY" -m gpt-5.4 </dev/null 2>"$grok_home/stderr.log")" \
  || fail "grok -p failed: $(tail -n 20 "$grok_home/stderr.log")"
[[ "$answer" == *"grok through the gateway"* ]] || fail "grok answer was: $answer"
echo "ok - @vibe-kit/grok-cli $CLIENTS_GROK_CLI_VERSION -p answers through /v1/chat/completions"

# ---- Codex CLI as a ChatGPT-backend client of the gateway -------------------------------------
# auth.json as ChatGPT login writes it; the access token Codex sends as its bearer is the client
# key, the id token (unsigned: Codex reads its claims, never its signature) carries the account.
home="$(mktemp -d "$WORK/codex-backend.XXXXXX")"
b64() { "$CLIENTS_PYTHON" -c "import base64,sys; print(base64.urlsafe_b64encode(sys.argv[1].encode()).decode().rstrip('='))" "$1"; }
claims='{"email":"e2e@example.test","exp":4102444800,"https://api.openai.com/auth":{"chatgpt_account_id":"acct-pool","chatgpt_plan_type":"pro"}}'
id_token="$(b64 '{"alg":"none","typ":"JWT"}').$(b64 "$claims").sig"
cat >"$home/auth.json" <<JSON
{"OPENAI_API_KEY":null,"tokens":{"id_token":"$id_token","access_token":"$KEY","refresh_token":"unused","account_id":"acct-pool"},"last_refresh":"$(date -u +%Y-%m-%dT%H:%M:%SZ)"}
JSON
cat >"$home/config.toml" <<TOML
model = "gpt-5.4"
model_provider = "switchboard_chatgpt"
chatgpt_base_url = "$GW/backend-api"
[model_providers.switchboard_chatgpt]
name = "Switchboard as ChatGPT backend"
base_url = "$GW/backend-api/codex"
wire_api = "responses"
requires_openai_auth = true
request_max_retries = 0
stream_max_retries = 0
TOML
(cd "$WORK" && CODEX_HOME="$home" timeout 120 "$CODEX_BIN" exec --skip-git-repo-check \
  --output-last-message "$home/last.txt" $'say hello\nsim: text="hello via the backend routes"' \
  </dev/null >"$home/stdout.log" 2>"$home/stderr.log") || fail "codex exec (ChatGPT backend) failed: $(tail -n 20 "$home/stderr.log")"
[[ "$(cat "$home/last.txt")" == "hello via the backend routes" ]] || fail "codex answer was: $(cat "$home/last.txt")"
echo "ok - codex exec as a ChatGPT-backend client: /backend-api/codex/responses answered"

# Codex's usage call (what `/status` shows), with the headers Codex sends: the pool's windows.
for id in acct-compat-1 acct-compat-2; do
  pct=$([[ $id == acct-compat-1 ]] && echo 20 || echo 60)
  curl -fsS -X PATCH "$SIM/_sim/accounts/$id" -H 'content-type: application/json' \
    -d "{\"primary_used_percent\":$pct,\"secondary_used_percent\":10}" >/dev/null
done
# The quota probe (every second here) reads each account's new windows.
usage=""
for _ in $(seq 1 60); do
  usage="$(curl -fsS "$GW/backend-api/wham/usage" -H "authorization: Bearer $KEY" \
    -H 'chatgpt-account-id: acct-pool' -H 'user-agent: codex-cli')"
  [[ "$(echo "$usage" | json "d['rate_limit']['primary_window']['used_percent']")" == 40 ]] && break
  sleep 0.5
done
[[ "$(echo "$usage" | json "d['rate_limit']['primary_window']['used_percent']")" == 40 ]] \
  || fail "wham/usage is not the pool mean of 20 % and 60 %: $usage"
echo "ok - /backend-api/wham/usage answers the pool's windows (primary 40 % = mean of 20 % and 60 %)"
echo "ok - gateway compatibility e2e complete"
