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
      if grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
        # Go's fuzzer counts its coverage run over the seed corpus against
        # -fuzztime; on a loaded 2-core machine that run alone can outlast
        # 10s and the fuzzer fails with its own deadline, no input found.
        # Once more with more time; a real failure writes its input and fails
        # either way.
        echo "fuzz $pkg $t: the fuzzer's deadline ran out before it found anything (seed coverage run); again for ${FUZZ_RETRY_TIME:-40s}" >&2
        if ! out=$(go test -run '^$' -fuzz "^${t}\$" -fuzztime "${FUZZ_RETRY_TIME:-40s}" "$pkg" 2>&1); then
          printf '%s\n' "$out" | grep -v '^fuzz: elapsed' >&2
          exit 1
        fi
      else
        printf '%s\n' "$out" | grep -v '^fuzz: elapsed' >&2
        exit 1
      fi
    fi
    printf '%s\n' "$out" | tail -3
  done
done
echo "fuzz: $found targets ran for $fuzztime each"
