#!/usr/bin/env bash
# Side by side: times the release build of a base revision and of this tree as
# Codex hooks, in interleaved rounds (each round runs scripts/benchrun once per
# build, each build on its own scratch logs: the index formats of two versions
# differ), pools each build's samples per cell and prints both medians, the
# ratio and a verdict against a limit. Issue 13's rule: no hook cell more than
# 10 % above the previous build at 10,000 and 1,000,000 events.
#
#   scripts/bench-compare.sh b904e47
#   ROUNDS=5 RUNS=30 SIZES=10000 LIMIT=1.10 scripts/bench-compare.sh HEAD~1
#
# Only what is committed at BASE is built for the base; this tree is built as it
# stands (uncommitted changes included).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/bench-compare.sh BASE_REVISION}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hook-loop-compare.XXXXXX")
cleanup() {
  git worktree remove --force "$tmp/src-base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
export HOOK_LOOP_STATE_DIR="$tmp/state"
export CGO_ENABLED="${CGO_ENABLED:-0}"
flags=(-tags urfave_cli_no_docs -trimpath "-ldflags=-s -w")
git worktree add --detach "$tmp/src-base" "$base" >/dev/null 2>&1
(cd "$tmp/src-base" && go build "${flags[@]}" -o "$tmp/base" .)
go build "${flags[@]}" -o "$tmp/new" .
go build "${flags[@]}" -o "$tmp/hello" ./scripts/benchrun/hello
go build -o "$tmp/benchrun" ./scripts/benchrun
printf 'binary size: %s %d bytes, this tree %d bytes\n' "$base" "$(wc -c <"$tmp/base")" "$(wc -c <"$tmp/new")" >&2
as=() bs=()
for r in $(seq "${ROUNDS:-3}"); do
  for b in base new; do
    echo "round $r: $b" >&2
    "$tmp/benchrun" -bin "$tmp/$b" -hello "$tmp/hello" -work "$tmp/work-$b" -runs "${RUNS:-40}" \
      -sizes "${SIZES:-10000,1000000}" -json "$tmp/$b-$r.json" >/dev/null
  done
  as+=("$tmp/base-$r.json") bs+=("$tmp/new-$r.json")
done
join() { local IFS=,; echo "$*"; }
"$tmp/benchrun" compare -a "$(join "${as[@]}")" -b "$(join "${bs[@]}")" -a-name "$base" -b-name "this tree" -limit "${LIMIT:-1.10}"
