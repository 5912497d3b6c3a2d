#!/usr/bin/env bash
# The dashboard in a real browser (Debian's Chromium via playwright-core) against the real
# binary and the upstream simulator: the journeys, every page at 390/1440 px x light/dark x
# en/zh-CN with axe-core, layout shift and request counts, and the quality-bar timings. The
# backups journey needs an S3 server: SeaweedFS (ensure_seaweedfs), stopped at exit.
# Screenshots and results.json land in frontend/test-results/ (git-ignored).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
# shellcheck source=../lib/services.sh
source "$REPO/scripts/lib/services.sh"
# shellcheck source=../lib/frontend.sh
source "$REPO/scripts/lib/frontend.sh"

frontend_build
frontend_browser
ensure_postgres test
ensure_redis
ensure_seaweedfs
# shellcheck source=../lib/build.sh
source "$REPO/scripts/lib/build.sh"
sb_build -p switchboard -p upstream-sim
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
cd frontend
node tests/e2e/run.mjs
