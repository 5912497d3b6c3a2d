# shellcheck shell=bash
# `scripts/run --demo`: a separate embedded install under .runtime/demo (fresh each run) whose
# upstream is the simulator, with one simulated ChatGPT account and one client key.
# Sourced by scripts/run; uses and sets its variables (bin, profile, bin_args, children, url).

DEMO_DIR="$REPO/.runtime/demo"

demo_prepare() {
  local ignored=() name
  for name in $(compgen -e); do
    if [[ "$name" == SWITCHBOARD_* ]]; then ignored+=("$name"); unset "$name"; fi
  done
  [ ${#ignored[@]} -eq 0 ] || echo "demo: ignoring ${ignored[*]} (the demo is its own install with its own configuration)" >&2
  rm -rf "$DEMO_DIR"
  mkdir -p "$DEMO_DIR" && chmod 700 "$DEMO_DIR"

  "target/$profile/upstream-sim" --listen 127.0.0.1:0 >"$DEMO_DIR/sim.out" 2>"$DEMO_DIR/sim.log" &
  children+=("$!")
  local _
  for _ in $(seq 1 100); do [ -s "$DEMO_DIR/sim.out" ] && break; sleep 0.1; done
  DEMO_SIM="$(head -n1 "$DEMO_DIR/sim.out")"
  [[ "$DEMO_SIM" == http://127.0.0.1:* ]] || { echo "the upstream simulator did not start: $(cat "$DEMO_DIR/sim.log")" >&2; exit 1; }

  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
  cat >"$DEMO_DIR/config.yaml" <<YAML
# Written by scripts/run --demo: the simulator is the upstream (plain http on loopback).
server:
  listen: 127.0.0.1:$port
  data_dir: $DEMO_DIR
providers:
  allow_http_loopback: true
  openai:
    backend_url: $DEMO_SIM/backend-api
    auth_url: $DEMO_SIM
YAML
  bin_args=(-c "$DEMO_DIR/config.yaml" "${bin_args[@]}")

  curl -fsS -X POST "$DEMO_SIM/_sim/accounts" -H 'content-type: application/json' -d '{"id":"demo-account","plan":"pro"}' \
    | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["tokens"]["codex_auth_json"]))' \
    | "$bin" "${bin_args[@]}" account import - >/dev/null \
    || { echo "demo: importing the simulated account failed" >&2; exit 1; }
  DEMO_KEY="$("$bin" "${bin_args[@]}" key create demo 2>/dev/null)" || { echo "demo: key create failed" >&2; exit 1; }
}

demo_curl() {
  printf "curl -sS %s/v1/responses -H 'Authorization: Bearer %s' -H 'content-type: application/json' -d '%s'" \
    "$url" "$DEMO_KEY" '{"model":"gpt-5.4","input":"Say hello"}'
}

demo_next_steps() {
  local answer
  answer="$(eval "$(demo_curl)" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(" ".join(c["text"] for o in r.get("output",[]) if o.get("type")=="message" for c in o["content"] if c.get("type")=="output_text"))' 2>&1)" || answer="(no answer: $answer)"
  cat <<EOF
Demo: the upstream is the simulator at $DEMO_SIM, with one simulated ChatGPT account
(demo-account) and a client key, all in $DEMO_DIR (started fresh on every --demo run).

  Ask something:
    $(demo_curl)
  It answered: $answer

  Codex CLI: put this in \$CODEX_HOME/config.toml, then: SWITCHBOARD_KEY=$DEMO_KEY codex exec 'Say hello'
    model = "gpt-5.4"
    model_provider = "switchboard"
    [model_providers.switchboard]
    name = "Switchboard"
    base_url = "$url/v1"
    wire_api = "responses"
    env_key = "SWITCHBOARD_KEY"

  The same commands with this install:  $(show) account list

EOF
}
