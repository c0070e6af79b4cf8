#!/usr/bin/env bash
# Per-call latency of a Python `module` lifecycle executor, a new process per
# call (nothing a hook starts stays running). Prints Go benchmark lines;
# ms-median is the median call.
#
#   scripts/bench-lifecycle.sh            # 20 calls
#   FRESH=50x scripts/bench-lifecycle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v python3 >/dev/null; then
  echo "SKIP lifecycle benchmark: python3 is not installed"
  exit 0
fi
go test ./lifecycle -run '^$' -bench 'BenchmarkPythonModuleFresh$' -benchtime "${FRESH:-20x}"
