#!/usr/bin/env bash
# The fidelity diff (issue 18): what the pinned Codex CLI sends to the simulator directly (as a
# ChatGPT-backend client) against what the gateway sends upstream for the same turn (Codex as an
# API client of the gateway). Header names, header values where they are stable, and top-level
# body field names and values are compared; every difference must be on the reviewed allow-list
# `scripts/e2e.d/fidelity/allow-list.txt` (the one place intended differences are written).
# A second comparison (issue 33) holds the turn the gateway originates for a non-Codex client —
# the same prompt from the pinned OpenAI Python SDK (`responses.create(stream=True)` on
# `/v1/responses`) — against the same direct Codex turn, under the allow-list's `[sdk]` section.
# Prints one `ok - …` line per check.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$REPO/scripts/e2e.d/gateway"
FIDELITY="$REPO/scripts/e2e.d/fidelity"
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
json() { "$CLIENTS_PYTHON" -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {'d': d, 'json': json}))" "$1"; }

gateway_start "acct-fidelity-gw"
echo "ok - gateway $GW provisioned (one account)"
# The same prompt for both runs; the simulator's script line makes the answer deterministic.
PROMPT=$'say hello\nsim: text="hello fidelity"'

run_codex() { # $1 = CODEX_HOME, $2 = API key (or empty); prints the last message
  (cd "$WORK/cwd" && CODEX_HOME="$1" SWITCHBOARD_KEY="$2" timeout 120 "$CODEX_BIN" exec --skip-git-repo-check \
    --output-last-message "$1/last.txt" "$PROMPT" </dev/null >"$1/stdout.log" 2>"$1/stderr.log") \
    || fail "codex exec failed (CODEX_HOME=$1): $(tail -n 20 "$1/stderr.log")"
  cat "$1/last.txt"
}
last_turn() { # the last POST /codex/responses the simulator recorded
  curl -fsS "$SIM/_sim/requests" | json "json.dumps([r for r in d if r['method']=='POST' and r['path'].endswith('/codex/responses')][-1])"
}
mkdir -p "$WORK/cwd"
# Both runs use the same CODEX_HOME path (Codex names it in the instructions it sends: the skill
# roots), each a fresh directory: the first run's is moved aside before the second starts.
CODEX_HOME_PATH="$WORK/codex-home"

# ---- 1. Codex straight to the simulator (what the real backend would see from Codex) -----------
direct_home="$CODEX_HOME_PATH"
mkdir -p "$direct_home"
curl -fsS -X POST "$SIM/_sim/accounts" -H 'content-type: application/json' -d '{"id":"acct-fidelity-direct","plan":"pro"}' \
  | json "json.dumps(d['tokens']['codex_auth_json'])" >"$direct_home/auth.json"
cat >"$direct_home/config.toml" <<TOML
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
TOML
curl -fsS -X DELETE "$SIM/_sim/requests" >/dev/null
answer="$(run_codex "$direct_home" "")"
[[ "$answer" == "hello fidelity" ]] || fail "codex direct answer was: $answer"
last_turn >"$WORK/direct.json"
mv "$direct_home" "$WORK/codex-direct"
echo "ok - codex $("$CODEX_BIN" --version | awk '{print $2}') straight to the simulator: turn recorded"

# ---- 2. Codex through the gateway (what the gateway sends upstream) ----------------------------
# The same mode as in 1 (a ChatGPT-backend client, so Codex reads the gateway's Codex catalog
# and sends what it would send to the backend), against the gateway's `/backend-api` routes:
# the auth.json of another simulator account with the gateway key as its access token.
gw_home="$CODEX_HOME_PATH"
mkdir -p "$gw_home"
curl -fsS -X POST "$SIM/_sim/accounts" -H 'content-type: application/json' -d '{"id":"acct-fidelity-client","plan":"pro"}' \
  | KEY="$KEY" json "json.dumps({**d['tokens']['codex_auth_json'], 'tokens': {**d['tokens']['codex_auth_json']['tokens'], 'access_token': __import__('os').environ['KEY']}})" \
  >"$gw_home/auth.json"
cat >"$gw_home/config.toml" <<TOML
model = "gpt-5.4"
model_provider = "switchboard"
chatgpt_base_url = "$GW/backend-api"
[model_providers.switchboard]
name = "Switchboard"
base_url = "$GW/backend-api/codex"
wire_api = "responses"
requires_openai_auth = true
request_max_retries = 0
stream_max_retries = 0
TOML
curl -fsS -X DELETE "$SIM/_sim/requests" >/dev/null
answer="$(run_codex "$gw_home" "")"
[[ "$answer" == "hello fidelity" ]] || fail "codex through the gateway answer was: $answer"
last_turn >"$WORK/gateway.json"
echo "ok - codex through the gateway: the upstream turn recorded"

# ---- 3. An OpenAI SDK client through the gateway (what the gateway originates upstream) -------
curl -fsS -X DELETE "$SIM/_sim/requests" >/dev/null
answer="$("$CLIENTS_PYTHON" "$FIDELITY/sdk_turn.py" "$GW" "$KEY" gpt-5.4 "$PROMPT" 2>"$WORK/sdk.err")" \
  || fail "the SDK turn failed: $(tail -n 20 "$WORK/sdk.err")"
[[ "$answer" == "hello fidelity" ]] || fail "the SDK turn's answer was: $answer"
last_turn >"$WORK/sdk.json"
echo "ok - openai $CLIENTS_OPENAI_PY_VERSION (python) responses.create(stream=True) through the gateway: the upstream turn recorded"

# ---- 4. The diffs -----------------------------------------------------------------------------
# FIDELITY_OUT=DIR keeps the recorded requests for a closer look.
[[ -z "${FIDELITY_OUT:-}" ]] || { mkdir -p "$FIDELITY_OUT" && cp "$WORK/direct.json" "$WORK/gateway.json" "$WORK/sdk.json" "$FIDELITY_OUT/"; }
"$CLIENTS_PYTHON" "$FIDELITY/diff.py" "$WORK/direct.json" "$WORK/gateway.json" "$FIDELITY/allow-list.txt" codex \
  || fail "the gateway's upstream request differs from Codex's beyond the allow-list (see above)"
echo "ok - codex fidelity: headers and top-level body fields match up to the allow-list"
"$CLIENTS_PYTHON" "$FIDELITY/diff.py" "$WORK/direct.json" "$WORK/sdk.json" "$FIDELITY/allow-list.txt" sdk \
  || fail "the gateway's upstream request for the SDK turn differs from Codex's beyond the allow-list's [sdk] section (see above)"
echo "ok - sdk fidelity: the gateway's turn for an SDK client matches Codex's up to the allow-list's [sdk] section"
