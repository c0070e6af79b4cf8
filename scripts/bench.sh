#!/usr/bin/env bash
# Times the real hook-loop binary as a Codex hook, per event type, on event logs
# of 0, 10,000, 100,000 and 1,000,000 events (8 sessions interleaved), and prints
# a Markdown table: median and p95 wall time, median CPU time, peak RSS, each
# median also as a multiple of a Go hello-world that reads stdin (built with the
# same flags) and of /bin/true. Then times the opencode plugin and the pi
# extension per tool call in a Node host of ~50 MiB and ~1 GiB: one-shot hooks vs
# the `hook-loop serve` co-process vs one spawn of the hello-world.
# Budgets (DESIGN.md, issue 14): codex-hook ≤ 1.5× the hello-world at 10,000
# events, 1,000,000 ≤ 1.05× that, peak < 20 MiB; a plugin tool call ≤ 1× one
# hello-world spawn from the same host, flat (±20%) from 50 MiB to 1 GiB.
#
#   scripts/bench.sh                 # both tables (docs/bench.md)
#   RUNS=20 SIZES=0,10000 scripts/bench.sh
#   scripts/bench.sh -json samples.json   # extra flags go to scripts/benchrun
#   PLUGIN=0 scripts/bench.sh             # codex table only
#   PLUGIN_ONLY=1 PLUGIN_RUNS=40 PLUGIN_RSS=50,1024 scripts/bench.sh
#   BUILD_FLAGS='-tags urfave_cli_no_docs' scripts/bench.sh   # another build
#
# By default the binaries are built as the README's install line builds them:
# CGO_ENABLED=0 go build -tags urfave_cli_no_docs -trimpath -ldflags='-s -w'.
# The pi rows need pi's jiti loader (scripts/install-harnesses.sh pi;
# HOOK_LOOP_HARNESS_DIR, default .cache/harnesses).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hook-loop-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The logs' keys (eventlog) live and die with the temporary logs.
export HOOK_LOOP_STATE_DIR="$tmp/state"
if [ -z "${BUILD_FLAGS+set}" ]; then
  export CGO_ENABLED="${CGO_ENABLED:-0}"
  flags=(-tags urfave_cli_no_docs -trimpath "-ldflags=-s -w")
else
  # shellcheck disable=SC2206
  flags=(${BUILD_FLAGS})
fi
go build "${flags[@]}" -o "$tmp/hook-loop" .
go build "${flags[@]}" -o "$tmp/hello" ./scripts/benchrun/hello
echo "built with: go build ${flags[*]} (CGO_ENABLED=${CGO_ENABLED:-})" >&2
go build -o "$tmp/benchrun" ./scripts/benchrun
if [ -z "${PLUGIN_ONLY:-}" ]; then
  "$tmp/benchrun" -bin "$tmp/hook-loop" -hello "$tmp/hello" -work "$tmp/work" \
    -runs "${RUNS:-50}" -sizes "${SIZES:-0,10000,100000,1000000}" "$@"
fi
if [ "${PLUGIN:-1}" != 0 ]; then
  if ! command -v node >/dev/null; then
    echo "skipping the plugin benchmark: node not found" >&2
    exit 0
  fi
  echo
  "$tmp/benchrun" plugin -bin "$tmp/hook-loop" -hello "$tmp/hello" -work "$tmp/plugin" \
    -harness-dir "${HOOK_LOOP_HARNESS_DIR:-.cache/harnesses}" \
    -runs "${PLUGIN_RUNS:-40}" -rss "${PLUGIN_RSS:-50,1024}"
fi
