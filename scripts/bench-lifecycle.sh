#!/usr/bin/env bash
# Per-call latency of a Python `module` lifecycle executor: kept alive (one
# long-lived process reached over a unix socket) beside a fresh process per
# call. Budget (issue 16): kept-alive median ≤ 5 ms. Prints Go benchmark lines;
# ms-median is the median call.
#
#   scripts/bench-lifecycle.sh            # 200 kept-alive calls, 20 fresh ones
#   KEPT=1000x FRESH=50x scripts/bench-lifecycle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v python3 >/dev/null; then
  echo "SKIP lifecycle benchmark: python3 is not installed"
  exit 0
fi
go test ./lifecycle -run '^$' -bench 'BenchmarkPythonModuleKeptAlive$' -benchtime "${KEPT:-200x}"
go test ./lifecycle -run '^$' -bench 'BenchmarkPythonModuleFresh$' -benchtime "${FRESH:-20x}"
