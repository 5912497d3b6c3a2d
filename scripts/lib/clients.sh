#!/usr/bin/env bash
# Real clients for end-to-end checks, installed at PINNED versions into a cache directory.
#
# Source this file, then call `clients_install` (idempotent: a second call only checks stamps).
# Everything lands in "${SWITCHBOARD_CACHE:-$REPO/.cache}/clients":
#   npm/        @openai/codex, openai, ws            (node_modules/.bin/codex)
#   venv/       Python venv with openai, websockets  (venv/bin/python)
# After `clients_install` these variables are set:
#   CODEX_BIN      path of the Codex CLI binary (the npm launcher script)
#   CLIENTS_NODE_MODULES  node_modules directory holding openai + ws (use as NODE_PATH)
#   CLIENTS_PYTHON python of the venv that has the openai package
# A client that cannot be installed makes `clients_install` fail with a message naming it:
# callers never skip silently.

# The Codex CLI version is the one the gateway presents itself as: read from its one place,
# PINNED_CODEX_VERSION in backend/crates/providers/openai/src/request_profile.rs.
CLIENTS_CODEX_VERSION="$(sed -n 's/^pub const PINNED_CODEX_VERSION: &str = "\([^"]*\)";$/\1/p' \
    "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/backend/crates/providers/openai/src/request_profile.rs")"
[[ -n "$CLIENTS_CODEX_VERSION" ]] || echo "clients.sh: PINNED_CODEX_VERSION not found in request_profile.rs" >&2
CLIENTS_OPENAI_NODE_VERSION="7.59.0"
CLIENTS_WS_VERSION="8.23.0"
CLIENTS_OPENAI_PY_VERSION="3.57.0"
CLIENTS_WEBSOCKETS_PY_VERSION="17.4"

clients_dir() {
    local repo
    repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    echo "${SWITCHBOARD_CACHE:-$repo/.cache}/clients"
}

clients_fail() {
    echo "clients.sh: $*" >&2
    return 1
}

clients_install_npm() {
    local dir="$1/npm"
    local want="codex=$CLIENTS_CODEX_VERSION openai=$CLIENTS_OPENAI_NODE_VERSION ws=$CLIENTS_WS_VERSION"
    if [[ -f "$dir/.stamp" && "$(cat "$dir/.stamp")" == "$want" && -x "$dir/node_modules/.bin/codex" ]]; then
        return 0
    fi
    command -v npm >/dev/null || clients_fail "npm is not installed; cannot install @openai/codex, openai, ws" || return 1
    mkdir -p "$dir"
    [[ -f "$dir/package.json" ]] || echo '{"name":"switchboard-e2e-clients","private":true}' >"$dir/package.json"
    if ! npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --save-exact \
        "@openai/codex@$CLIENTS_CODEX_VERSION" "openai@$CLIENTS_OPENAI_NODE_VERSION" "ws@$CLIENTS_WS_VERSION" >&2; then
        clients_fail "npm install of @openai/codex@$CLIENTS_CODEX_VERSION openai@$CLIENTS_OPENAI_NODE_VERSION ws@$CLIENTS_WS_VERSION failed"
        return 1
    fi
    [[ -x "$dir/node_modules/.bin/codex" ]] || clients_fail "codex binary missing after npm install" || return 1
    echo "$want" >"$dir/.stamp"
}

clients_install_python() {
    local venv="$1/venv"
    local want="openai=$CLIENTS_OPENAI_PY_VERSION websockets=$CLIENTS_WEBSOCKETS_PY_VERSION"
    if [[ -f "$venv/.stamp" && "$(cat "$venv/.stamp")" == "$want" && -x "$venv/bin/python" ]]; then
        return 0
    fi
    command -v python3 >/dev/null || clients_fail "python3 is not installed; cannot install the openai package" || return 1
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv" || clients_fail "python3 -m venv failed (is python3-venv installed?)" || return 1
    fi
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "openai==$CLIENTS_OPENAI_PY_VERSION" "websockets==$CLIENTS_WEBSOCKETS_PY_VERSION" >&2; then
        clients_fail "pip install openai==$CLIENTS_OPENAI_PY_VERSION websockets==$CLIENTS_WEBSOCKETS_PY_VERSION failed"
        return 1
    fi
    echo "$want" >"$venv/.stamp"
}

clients_install() {
    local dir
    dir="$(clients_dir)"
    mkdir -p "$dir"
    clients_install_npm "$dir" || return 1
    clients_install_python "$dir" || return 1
    CODEX_BIN="$dir/npm/node_modules/.bin/codex"
    CLIENTS_NODE_MODULES="$dir/npm/node_modules"
    CLIENTS_PYTHON="$dir/venv/bin/python"
    export CODEX_BIN CLIENTS_NODE_MODULES CLIENTS_PYTHON
}

# `@vibe-kit/grok-cli` (a Chat Completions client over the OpenAI JS SDK), installed apart from
# the clients above so that their stamp stays as it is. Sets GROK_BIN.
CLIENTS_GROK_CLI_VERSION="0.0.34"

clients_install_grok() {
    local dir
    dir="$(clients_dir)/grok"
    local want="grok-cli=$CLIENTS_GROK_CLI_VERSION"
    if ! [[ -f "$dir/.stamp" && "$(cat "$dir/.stamp")" == "$want" && -x "$dir/node_modules/.bin/grok" ]]; then
        command -v npm >/dev/null || clients_fail "npm is not installed; cannot install @vibe-kit/grok-cli" || return 1
        mkdir -p "$dir"
        [[ -f "$dir/package.json" ]] || echo '{"name":"switchboard-e2e-grok","private":true}' >"$dir/package.json"
        npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --save-exact \
            "@vibe-kit/grok-cli@$CLIENTS_GROK_CLI_VERSION" >&2 \
            || clients_fail "npm install of @vibe-kit/grok-cli@$CLIENTS_GROK_CLI_VERSION failed" || return 1
        [[ -x "$dir/node_modules/.bin/grok" ]] || clients_fail "grok binary missing after npm install" || return 1
        echo "$want" >"$dir/.stamp"
    fi
    GROK_BIN="$dir/node_modules/.bin/grok"
    export GROK_BIN
}
