#!/usr/bin/env bash
# Runs every native fuzz target of the module for a short while each (default
# 10s): the seeds always run in `go test`; this explores beyond them.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
found=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u || true)
  for t in $targets; do
    found=$((found + 1))
    echo "fuzz $pkg $t for $fuzztime"
    # The last lines on success; everything on failure (why it failed, the
    # input written to testdata/fuzz), which `tail` alone cut off.
    if ! out=$(go test -run '^$' -fuzz "^${t}\$" -fuzztime "$fuzztime" "$pkg" 2>&1); then
      printf '%s\n' "$out" | grep -v '^fuzz: elapsed' >&2
      exit 1
    fi
    printf '%s\n' "$out" | tail -3
  done
done
echo "fuzz: $found targets ran for $fuzztime each"
