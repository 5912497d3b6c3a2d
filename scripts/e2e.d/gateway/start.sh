# shellcheck shell=bash
# Starts the upstream simulator and a provisioned gateway for an e2e script.
# Source it after scripts/lib/services.sh; it sets SIM, GW (base URL), KEY and GW_ENV (a file of
# exports for further `switchboard` commands) and registers cleanup. Needs: REPO, HERE, WORK, fail().

# shellcheck source=../../lib/build.sh
source "$REPO/scripts/lib/build.sh"

gateway_start() { # $1 = comma-separated simulator account ids (`xai:ID` for an xAI account)
  (cd "$REPO" && sb_build -p upstream-sim -p switchboard) || fail "build failed"
  local bin="$REPO/target/debug"
  "$bin/upstream-sim" --listen 127.0.0.1:0 >"$WORK/sim.out" 2>"$WORK/sim.err" &
  SIM_PID=$!
  for _ in $(seq 1 100); do [[ -s "$WORK/sim.out" ]] && break; sleep 0.1; done
  SIM="$(head -n1 "$WORK/sim.out")"
  [[ "$SIM" == http://127.0.0.1:* ]] || fail "upstream-sim did not start: $(cat "$WORK/sim.err")"

  ensure_postgres test >/dev/null || fail "PostgreSQL unavailable"
  ensure_redis >/dev/null || fail "Redis unavailable"
  local schema="e2e_$(date +%s)_$RANDOM"
  psql "$SWITCHBOARD_TEST_DATABASE_URL" -qc "CREATE SCHEMA $schema" || fail "cannot create schema"
  SB_STOP_ACTIONS+=("psql '$SWITCHBOARD_TEST_DATABASE_URL' -qc 'DROP SCHEMA $schema CASCADE'")
  local port
  port="$(sb_free_port)"
  GW_ENV="$WORK/gateway.env"
  cat >"$GW_ENV" <<ENV
export SWITCHBOARD_DATABASE_URL='${SWITCHBOARD_TEST_DATABASE_URL}?options=-c%20search_path%3D${schema}'
export SWITCHBOARD_REDIS_URL='$SWITCHBOARD_TEST_REDIS_URL'
export SWITCHBOARD_REDIS_KEY_PREFIX='$schema'
export SWITCHBOARD_SECRETS_MASTER_KEY='$("$bin/switchboard" master-key)'
export SWITCHBOARD_PROVIDERS_ALLOW_HTTP_LOOPBACK=true
export SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL='$SIM/backend-api'
export SWITCHBOARD_PROVIDERS_OPENAI_AUTH_URL='$SIM'
export SWITCHBOARD_PROVIDERS_XAI_INFERENCE_URL='$SIM/xai/v1'
export SWITCHBOARD_PROVIDERS_XAI_ISSUER_URL='$SIM/xai'
export SWITCHBOARD_PROVIDERS_XAI_NPM_REGISTRY_URL='$SIM/npm'
export SWITCHBOARD_SERVER_LISTEN='127.0.0.1:$port'
export SWITCHBOARD_ENGINE_SNAPSHOT_POLL_MS=200
export SWITCHBOARD_SERVER_DATA_DIR='$WORK/data'
ENV
  local id
  for id in ${1//,/ }; do
    if [[ "$id" == xai:* ]]; then
      curl -fsS -X POST "$SIM/_sim/accounts" -H 'content-type: application/json' \
        -d "{\"id\":\"${id#xai:}\",\"provider\":\"xai\"}" \
        | "$CLIENTS_PYTHON" "$HERE/grok_auth_json.py" \
        | (source "$GW_ENV" && "$bin/switchboard" account import --provider xai -) >/dev/null || fail "xai import failed"
      continue
    fi
    curl -fsS -X POST "$SIM/_sim/accounts" -H 'content-type: application/json' -d "{\"id\":\"$id\",\"plan\":\"pro\"}" \
      | "$CLIENTS_PYTHON" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["tokens"]["codex_auth_json"]))' \
      | (source "$GW_ENV" && "$bin/switchboard" account import -) >/dev/null || fail "account import failed"
  done
  KEY="$(source "$GW_ENV" && "$bin/switchboard" key create e2e 2>/dev/null)" || fail "key create failed"
  (source "$GW_ENV" && exec "$bin/switchboard" serve) >"$WORK/gateway.log" 2>&1 &
  GW_PID=$!
  GW="http://127.0.0.1:$port"
  for _ in $(seq 1 200); do
    curl -fsS "$GW/readyz" >/dev/null 2>&1 && return 0
    kill -0 "$GW_PID" 2>/dev/null || fail "the gateway exited: $(tail -n 20 "$WORK/gateway.log")"
    sleep 0.1
  done
  fail "the gateway did not become ready: $(tail -n 20 "$WORK/gateway.log")"
}

gateway_stop() {
  [[ -n "${GW_PID:-}" ]] && { kill "$GW_PID" 2>/dev/null || true; wait "$GW_PID" 2>/dev/null || true; }
  [[ -n "${SIM_PID:-}" ]] && { kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; }
}
