# shellcheck shell=bash
# Building the debug binaries the drills and end-to-end scripts run.
#
#   sb_build -p PKG...   cargo build of those packages; when SWITCHBOARD_BUILD_ALL_TARGETS=1
#                        (scripts/test sets it after the test step) the whole workspace with all
#                        targets instead, so the binaries keep the features the test build
#                        unified (dev-dependencies such as tokio's test-util) and nothing is
#                        compiled a second time.
sb_build() {
  if [ "${SWITCHBOARD_BUILD_ALL_TARGETS:-}" = 1 ]; then
    cargo build --quiet --locked --workspace --all-targets
  else
    cargo build --quiet --locked "$@"
  fi
}
