#!/usr/bin/env bash
# The newcomer's path with no services: `scripts/run --demo` with PostgreSQL and Redis pointed
# at closed ports (the demo ignores SWITCHBOARD_* anyway, and the embedded mode uses neither):
# /healthz answers 200, the curl it prints answers, and `codex exec` through it answers.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../lib/clients.sh
source "$REPO/scripts/lib/clients.sh"
fail() { echo "not ok - $*" >&2; exit 1; }
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
WORK="$(mktemp -d)"
out="$WORK/run.out"

# Nothing answers on port 9: a demo that needed PostgreSQL or Redis could not start.
SWITCHBOARD_DATABASE_URL=postgres://127.0.0.1:9/none SWITCHBOARD_REDIS_URL=redis://127.0.0.1:9 \
  SWITCHBOARD_TEST_DATABASE_URL=postgres://127.0.0.1:9/none SWITCHBOARD_TEST_REDIS_URL=redis://127.0.0.1:9 \
  "$REPO/scripts/run" --demo >"$out" 2>"$WORK/run.err" &
run_pid=$!
trap 'kill "$run_pid" 2>/dev/null || true; wait "$run_pid" 2>/dev/null || true; rm -rf "$WORK"' EXIT

for _ in $(seq 1 1800); do   # the first build may take minutes
  grep -q '^  It answered:' "$out" 2>/dev/null && break
  kill -0 "$run_pid" 2>/dev/null || fail "scripts/run --demo exited: $(tail -n 20 "$WORK/run.err")"
  sleep 0.2
done
grep -q '^  It answered:' "$out" || fail "scripts/run --demo printed no answer: $(tail -n 20 "$WORK/run.err")"

url="$(grep -o 'Admin dashboard  http://[0-9.:]*' "$out" | awk '{print $3}')"
[[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/healthz")" == 200 ]] || fail "/healthz of $url is not 200"
echo "ok - scripts/run --demo serves $url without PostgreSQL or Redis (/healthz 200)"

printed_curl="$(grep -m1 '^    curl -sS ' "$out")"
answer="$(eval "$printed_curl")" || fail "the printed curl failed: $printed_curl"
python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["status"]=="completed", r; assert any(o.get("type")=="message" for o in r["output"]), r' "$answer" \
  || fail "the printed curl did not answer: $answer"
echo "ok - the curl scripts/run --demo prints answers (status completed)"

key="$(grep -o "Bearer [^']*" <<<"$printed_curl" | awk '{print $2}')"
if ! clients_install >/dev/null 2>"$WORK/clients.err"; then
  echo "ok - # SKIP codex exec: the pinned Codex CLI could not be installed ($(tail -n 1 "$WORK/clients.err"))"
  exit 0
fi
home="$WORK/codex"
mkdir -p "$home"
sed -n '/^    model = /,/^    env_key = /p' "$out" | sed 's/^    //' >"$home/config.toml"
echo 'request_max_retries = 0' >>"$home/config.toml"
(cd "$WORK" && CODEX_HOME="$home" SWITCHBOARD_KEY="$key" timeout 120 "$CODEX_BIN" exec --skip-git-repo-check \
  --output-last-message "$home/last.txt" $'say hello\nsim: text="hello from the embedded demo"' \
  </dev/null >"$home/stdout.log" 2>"$home/stderr.log") || fail "codex exec failed: $(tail -n 20 "$home/stderr.log")"
[[ "$(cat "$home/last.txt")" == "hello from the embedded demo" ]] || fail "codex answered: $(cat "$home/last.txt")"
echo "ok - codex exec through the demo gateway (embedded mode) answers"

# Stopping scripts/run stops what it started.
kill "$run_pid"; wait "$run_pid" 2>/dev/null || true
for _ in $(seq 1 100); do curl -s -o /dev/null "$url/healthz" || break; sleep 0.2; done
if curl -s -o /dev/null "$url/healthz"; then fail "the gateway still answers after scripts/run was stopped"; fi
echo "ok - stopping scripts/run stops the gateway it started"
