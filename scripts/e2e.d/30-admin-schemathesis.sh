#!/usr/bin/env bash
# The admin API against its own OpenAPI document with schemathesis (pinned, installed into
# .cache/): a real gateway (own PostgreSQL schema, own Redis prefix, the upstream simulator
# with one imported account and a few recorded requests), a valid admin session, and every
# documented operation fuzzed with a bounded number of examples. Fails on any 5xx or any
# response that does not match the document.
#
# Not fuzzed, on purpose: POST /auth/logout and DELETE /auth/sessions/{id} (they end the
# session the run uses: schemathesis reuses the session ids it reads), GET /events (an
# endless SSE stream) and POST /system/restart (it restarts the gateway under test; the
# self-update end-to-end test covers it). The other system routes are fuzzed: without a release
# source, update and rollback answer 409. Refresh, probe and test of accounts and the OAuth routes are fuzzed:
# they reach the simulator (bounded by the example count and the request timeout). TOTP
# enrollment and disabling need the password, which the fuzzer does not know, so it cannot
# turn TOTP on and lock its own session out.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
# shellcheck source=../lib/services.sh
source "$REPO/scripts/lib/services.sh"

SCHEMATHESIS_VERSION="4.32.5"
EXAMPLES="${SB_SCHEMATHESIS_EXAMPLES:-25}"
VENV="${SWITCHBOARD_CACHE:-$REPO/.cache}/schemathesis/venv"

fail() { echo "not ok - $*" >&2; exit 1; }

install_schemathesis() {
    if [[ -f "$VENV/.stamp" && "$(cat "$VENV/.stamp")" == "$SCHEMATHESIS_VERSION" && -x "$VENV/bin/schemathesis" ]]; then
        return 0
    fi
    command -v python3 >/dev/null || fail "python3 is not installed; cannot install schemathesis"
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV" || fail "python3 -m venv failed (is python3-venv installed?)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2 \
        || fail "pip install schemathesis==$SCHEMATHESIS_VERSION failed"
    echo "$SCHEMATHESIS_VERSION" >"$VENV/.stamp"
}

install_schemathesis
ensure_postgres test
ensure_redis
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

# shellcheck source=../lib/build.sh
source "$REPO/scripts/lib/build.sh"
sb_build -p switchboard -p upstream-sim
BIN="$REPO/target/debug/switchboard"
WORK="$(mktemp -d)"
SCHEMA="e2e_admin_$(date +%s)_$$"
SIM_PID=""
GW_PID=""
cleanup() {
    [[ -n "$GW_PID" ]] && { kill "$GW_PID" 2>/dev/null || true; wait "$GW_PID" 2>/dev/null || true; }
    [[ -n "$SIM_PID" ]] && { kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; }
    psql "$SWITCHBOARD_TEST_DATABASE_URL" -qc "DROP SCHEMA IF EXISTS \"$SCHEMA\" CASCADE" >/dev/null 2>&1 || true
    [[ -n "${SB_KEEP_LOGS:-}" ]] && cp "$WORK"/*.log "$SB_KEEP_LOGS"/ 2>/dev/null; rm -rf "$WORK"
    sb_stop_services
}
trap cleanup EXIT

# The simulator, with one account.
"$REPO/target/debug/upstream-sim" --listen 127.0.0.1:0 >"$WORK/sim.out" 2>"$WORK/sim.err" &
SIM_PID=$!
for _ in $(seq 1 100); do [[ -s "$WORK/sim.out" ]] && break; sleep 0.1; done
SIM="$(head -n1 "$WORK/sim.out")"
[[ "$SIM" == http://127.0.0.1:* ]] || fail "upstream-sim did not print its URL: $(cat "$WORK/sim.err")"
ACCOUNT="$(curl -fsS -X POST "$SIM/_sim/accounts" -H 'content-type: application/json' -d '{"id":"acct-admin-e2e","plan":"pro"}')"

# The gateway on its own schema and Redis prefix.
psql "$SWITCHBOARD_TEST_DATABASE_URL" -qc "CREATE SCHEMA \"$SCHEMA\"" >/dev/null
PORT="$(sb_free_port)"
PASSWORD="schemathesis-$(date +%s)-pw"
export SWITCHBOARD_DATABASE_URL="$SWITCHBOARD_TEST_DATABASE_URL?options=-csearch_path%3D$SCHEMA"
export SWITCHBOARD_REDIS_URL="$SWITCHBOARD_TEST_REDIS_URL"
export SWITCHBOARD_REDIS_KEY_PREFIX="e2e-admin-$$"
SWITCHBOARD_SECRETS_MASTER_KEY="$("$BIN" master-key)"
export SWITCHBOARD_SECRETS_MASTER_KEY
export SWITCHBOARD_PROVIDERS_ALLOW_HTTP_LOOPBACK=true
export SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL="$SIM/backend-api"
export SWITCHBOARD_PROVIDERS_OPENAI_AUTH_URL="$SIM"
# The xAI login routes (OIDC discovery, device start) reach the simulator, never auth.x.ai.
export SWITCHBOARD_PROVIDERS_XAI_INFERENCE_URL="$SIM/xai/v1"
export SWITCHBOARD_PROVIDERS_XAI_ISSUER_URL="$SIM/xai"
export SWITCHBOARD_PROVIDERS_XAI_NPM_REGISTRY_URL="$SIM/npm"
export SWITCHBOARD_SERVER_LISTEN="127.0.0.1:$PORT"
export SWITCHBOARD_ADMIN_BOOTSTRAP_PASSWORD="$PASSWORD"
export SWITCHBOARD_ADMIN_LIVE_POLL_MS=500
python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["tokens"]["codex_auth_json"]))' <<<"$ACCOUNT" \
    | "$BIN" account import - >/dev/null || fail "account import failed"
KEY="$("$BIN" key create schemathesis)"
"$BIN" >"$WORK/gateway.log" 2>&1 &
GW_PID=$!
GW="http://127.0.0.1:$PORT"
for _ in $(seq 1 150); do
    curl -fsS "$GW/readyz" >/dev/null 2>&1 && break
    kill -0 "$GW_PID" 2>/dev/null || fail "gateway exited: $(tail -n 20 "$WORK/gateway.log")"
    sleep 0.2
done
curl -fsS "$GW/readyz" >/dev/null || fail "gateway not ready: $(tail -n 20 "$WORK/gateway.log")"
echo "ok - gateway with the admin API listening on $GW"

# A few recorded requests so usage views have rows.
for _ in 1 2 3; do
    curl -fsS -o /dev/null "$GW/v1/responses" -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
        -d '{"model":"gpt-5.4","input":"hello","stream":false}' || true
done

# A session.
LOGIN="$(curl -fsS -D "$WORK/login.headers" "$GW/api/admin/auth/login" -H 'content-type: application/json' \
    -d "{\"username\":\"admin\",\"password\":\"$PASSWORD\"}")" || fail "admin login failed"
# Login sets the session and the device cookie: send them back as one Cookie header.
COOKIE="$(grep -i '^set-cookie:' "$WORK/login.headers" | sed -E 's/^[Ss]et-[Cc]ookie: *([^;]*).*/\1/' | tr -d '\r' | paste -sd ';' - | sed 's/;/; /g')"
CSRF="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["session"]["csrfToken"])' <<<"$LOGIN")"
[[ "$COOKIE" == sb_admin_session=* ]] || fail "login set no session cookie"
echo "ok - logged in as admin"

set +e
# Run inside the scratch directory: schemathesis keeps its example database in the cwd.
(cd "$WORK" && "$VENV/bin/schemathesis" run "$GW/api/admin/openapi.json" \
    --url "$GW" \
    -H "Cookie: $COOKIE" -H "X-Switchboard-CSRF: $CSRF" \
    --checks not_a_server_error,response_schema_conformance,content_type_conformance \
    --phases "${SB_SCHEMATHESIS_PHASES:-examples,coverage,fuzzing,stateful}" \
    --max-examples "$EXAMPLES" \
    --workers 2 \
    --request-timeout 20 \
    --seed "${SB_SCHEMATHESIS_SEED:-20251130}" \
    --exclude-path /api/admin/auth/logout \
    --exclude-path /api/admin/events \
    --exclude-path '/api/admin/auth/sessions/{id}' \
    --exclude-path /api/admin/system/restart \
    --no-color) >"$WORK/schemathesis.log" 2>&1
status=$?
set -e
if [[ $status -eq 0 ]]; then tail -n 25 "$WORK/schemathesis.log"; else cat "$WORK/schemathesis.log"; tail -n 30 "$WORK/gateway.log"; fi
if grep -q '"status":5\|panicked' "$WORK/gateway.log"; then
    echo "gateway log mentions a 5xx or a panic:" >&2
    grep '"status":5\|panicked' "$WORK/gateway.log" | tail -n 5 >&2
fi
[[ $status -eq 0 ]] || fail "schemathesis found problems (exit $status)"
curl -fsS "$GW/api/admin/auth/session" -H "Cookie: $COOKIE" >/dev/null || fail "the session did not survive the run"
echo "ok - schemathesis $SCHEMATHESIS_VERSION: no 5xx and no schema violation ($EXAMPLES examples per operation)"
