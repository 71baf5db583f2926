#!/usr/bin/env bash
# Viewers the export tests (crates/export/tests) open tracekit's exports in,
# installed from the npm registry into a cache outside the repository:
#   speedscope (the built web app in dist/release/), opened in headless
#   Chromium by tests/speedscope_browser.rs;
#   @firefox-devtools/profiler-cli (the Firefox Profiler's own profile
#   loading and call-tree code), run by tests/firefox_profiler.rs.
# Uses the machine's Node.js and npm. Pinned versions; idempotent: does
# nothing when both are present.
set -euo pipefail
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tracekit"
install() { # DIR PACKAGE@VERSION CHECK-FILE
  local dir="$cache/$1"
  [ -e "$dir/node_modules/$3" ] && return 0
  command -v npm >/dev/null || { echo "export.sh: npm not found (apt package npm)" >&2; exit 1; }
  mkdir -p "$dir"
  (cd "$dir" && npm install --silent --no-audit --no-fund --ignore-scripts --no-save "$2" >/dev/null 2>&1) ||
    (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --no-save "$2")
  [ -e "$dir/node_modules/$3" ] || { echo "export.sh: $2 installed without $3" >&2; exit 1; }
  echo "export.sh: installed $2 into $dir" >&2
}
install speedscope-1.25.0 speedscope@1.25.0 speedscope/dist/release/index.html
install profiler-cli-0.10.0 @firefox-devtools/profiler-cli@0.10.0 @firefox-devtools/profiler-cli/dist/profiler-cli.js
