#!/usr/bin/env bash
# The Python SDK's unit tests (sdk/python), from its source folder: no package
# index is needed. Skips when python3 is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v python3 >/dev/null; then
  echo "SKIP python SDK tests: python3 is not installed"
  exit 0
fi
PYTHONPATH=sdk/python python3 -m unittest discover -s sdk/python/tests
