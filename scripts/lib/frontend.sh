# shellcheck shell=bash
# The dashboard (frontend/): dependencies, checks and the build the binary embeds.
#
#   frontend_deps    npm ci when node_modules does not match package-lock.json (stamp)
#   frontend_build   npm run build when a source is newer than dist/index.html
#   frontend_checks  type-check, lint, unit tests (vitest)
#   frontend_browser Debian's Chromium and a CJK font (zh-CN screenshots) for the browser
#                    tests (apt-get when missing; never a downloaded browser)
# Needs REPO.

frontend_fail() { echo "frontend.sh: $*" >&2; return 1; }

frontend_deps() {
  local dir="$REPO/frontend" stamp
  command -v npm >/dev/null || frontend_fail "npm is not installed (Node.js 20 + npm): apt-get install -y nodejs npm" || return 1
  stamp="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [[ -f "$dir/node_modules/.sb-stamp" && "$(cat "$dir/node_modules/.sb-stamp")" == "$stamp" ]]; then
    return 0
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || frontend_fail "npm ci failed in frontend/" || return 1
  echo "$stamp" >"$dir/node_modules/.sb-stamp"
}

frontend_build() {
  local dir="$REPO/frontend"
  frontend_deps || return 1
  if [[ -f "$dir/dist/index.html" ]] && [[ -z "$(find "$dir/src" "$dir/public" "$dir/index.html" "$dir/vite.config.ts" "$dir/package-lock.json" -newer "$dir/dist/index.html" -print -quit)" ]]; then
    return 0
  fi
  (cd "$dir" && npm run -s build) || frontend_fail "npm run build failed in frontend/" || return 1
}

frontend_checks() {
  local dir="$REPO/frontend"
  frontend_deps || return 1
  (cd "$dir" && npm run -s typecheck && npm run -s lint && npm run -s unit)
}

frontend_browser() {
  local missing=()
  [[ -x "${SB_CHROMIUM:-/usr/bin/chromium}" ]] || missing+=(chromium)
  if ! command -v fc-list >/dev/null || [[ -z "$(fc-list :lang=zh 2>/dev/null | head -n1)" ]]; then
    missing+=(fonts-wqy-microhei)
  fi
  [[ ${#missing[@]} -eq 0 ]] && return 0
  command -v apt-get >/dev/null || frontend_fail "missing ${missing[*]} and apt-get is not available" || return 1
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >&2 \
    || frontend_fail "apt-get install ${missing[*]} failed" || return 1
}
