#!/usr/bin/env bash
# The whole test suite: what the README's second command and CI (.ci/run) run.
# Installs the real harness binaries (npm) for the end-to-end suites, vets, runs
# every Go test, runs each fuzz target briefly, and builds and checks the
# snapshot release (every target, the npm tarballs, install.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== harnesses"
scripts/install-harnesses.sh || echo "install-harnesses failed; end-to-end suites will skip"
scripts/install-chromium.sh || echo "install-chromium failed; browser suites will skip"
scripts/install-postgres.sh || echo "install-postgres failed; PostgreSQL suites will skip"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" $unformatted
  exit 1
fi

echo "== vet"
go vet ./...

echo "== staticcheck"
# Pinned so a new release's checks never turn a green tree red overnight.
GOBIN="$PWD/.cache/bin" go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
.cache/bin/staticcheck ./...

echo "== test"
# Log keys (eventlog) of the tests' temporary logs go to a directory of their
# own, not the user's state directory.
HOOK_LOOP_STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hook-loop-state.XXXXXX")
export HOOK_LOOP_STATE_DIR
trap 'rm -rf "$HOOK_LOOP_STATE_DIR"' EXIT
go test -count=1 -timeout 40m ./...

echo "== benchmarks, once each"
# Each benchmark runs one iteration, so one that no longer runs (a moved
# fixture, a renamed package) fails here, not when someone needs its figures.
bench_out="$HOOK_LOOP_STATE_DIR/bench.out" # removed with it on exit
# (The fleet board's at a hundredth of its size: its 1,000,000 events are a
# figure to measure, not to check that it runs.)
if ! FLEET_BENCH_PROJECTS=5 FLEET_BENCH_EVENTS=2000 go test -count=1 -run '^$' -bench . -benchtime 1x -timeout 15m ./... >"$bench_out" 2>&1; then
  grep -v '^ok\|no test files' "$bench_out"
  rm -f "$bench_out"
  exit 1
fi
rm -f "$bench_out"

echo "== python sdk"
scripts/test-python.sh

echo "== fuzz (${FUZZTIME:=10s} per target)"
scripts/fuzz.sh "$FUZZTIME"

echo "== release (cross-compiles every target)"
# The snapshot release builds the six targets of both binaries, then checks
# the npm tarballs and install.sh offline, as a user without Go meets them.
scripts/test-release.sh
