#!/usr/bin/env bash
# Times the real hook-loop binary as a Codex hook, per event type, on event logs
# of 0, 10,000, 100,000 and 1,000,000 events (8 sessions interleaved), and prints
# a Markdown table: median and p95 wall time, median CPU time, peak RSS.
# Budgets (DESIGN.md): median < 5 ms at 10,000 events, 1,000,000 events ≤ 1.3×
# that, peak memory < 20 MiB.
#
#   scripts/bench.sh                 # the full table (docs/bench.md)
#   RUNS=20 SIZES=0,10000 scripts/bench.sh
#   scripts/bench.sh -json samples.json   # extra flags go to scripts/benchrun
#   BUILD_FLAGS='-tags urfave_cli_no_docs' CGO_ENABLED=0 scripts/bench.sh
#
# By default the binary is built exactly as `go build .` builds it.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hook-loop-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The logs' keys (eventlog) live and die with the temporary logs.
export HOOK_LOOP_STATE_DIR="$tmp/state"
# shellcheck disable=SC2086
go build ${BUILD_FLAGS:-} -o "$tmp/hook-loop" .
go build -o "$tmp/benchrun" ./scripts/benchrun
"$tmp/benchrun" -bin "$tmp/hook-loop" -work "$tmp/work" \
  -runs "${RUNS:-50}" -sizes "${SIZES:-0,10000,100000,1000000}" "$@"
