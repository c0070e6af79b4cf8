#!/usr/bin/env bash
# Side by side: times the release build of a base revision and of this tree as
# Codex hooks, one process per event, in interleaved rounds (each round runs
# scripts/benchrun once per build, each build on its own scratch logs: the
# index formats of two versions differ), pools each build's samples per cell
# and prints both medians, the ratio, each one's multiple of the Go
# hello-world run in its own rounds, and a verdict against a limit. Issue 13's
# rule: no hook cell more than 10 % above the previous build at 10,000 and
# 1,000,000 events.
#
# Each build's hook-loop-hook (the lean one-shot hook installs write) and
# hook-loop are built side by side and timed run by run alternately, as
# scripts/bench.sh does. A base from before cmd/hook-loop-hook has only
# hook-loop: then two tables, what installs write (hook-loop at the base,
# hook-loop-hook here) and hook-loop against hook-loop.
#
# A base whose Linux hook-loop-hook is the hook server's client (ace9443 and
# the revisions before it back to the server's introduction) has its one-shot
# lean hook only for other systems: in the base's worktree the Linux-only
# files of cmd/hook-loop-hook are removed and the !linux constraints dropped
# before the build, so that its hook-loop-hook is that one-shot hook (the
# script says so), and its runs have HOOK_LOOP_HOOKD=off and
# HOOK_LOOP_PG_KEEPER=off, so that nothing of the base starts a server.
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
# Each build's binaries in a directory of their own, under their installed
# names: the cells name their binary by file name, and hook-loop-hook execs
# the hook-loop beside it.
mkdir -p "$tmp/base" "$tmp/new"
(cd "$tmp/src-base" && go build "${flags[@]}" -o "$tmp/base/hook-loop" .)
base_lean=0
if git cat-file -e "$base:cmd/hook-loop-hook" 2>/dev/null; then
  hookdir="$tmp/src-base/cmd/hook-loop-hook"
  if [ "$(go env GOOS)" = linux ] && grep -lq '^//go:build.*!linux' "$hookdir"/*.go; then
    # Open the build tags: the files for every system but Linux are the
    # one-shot hook; the Linux ones are the hook server's client.
    rm -f "$hookdir"/*_linux.go "$hookdir"/*_linux_test.go
    sed -i -e '/^\/\/go:build !linux$/d' -e 's/^\(\/\/go:build .*\) && !linux$/\1/' "$hookdir"/*.go
    echo "$base: cmd/hook-loop-hook on Linux is the hook server's client; built its one-shot lean hook instead (Linux-only files removed, !linux constraints dropped)" >&2
  fi
  (cd "$tmp/src-base" && go build "${flags[@]}" -o "$tmp/base/hook-loop-hook" ./cmd/hook-loop-hook)
  base_lean=1
else
  echo "$base has no cmd/hook-loop-hook: its installs write hook-loop into the hooks" >&2
fi
go build "${flags[@]}" -o "$tmp/new/hook-loop" .
go build "${flags[@]}" -o "$tmp/new/hook-loop-hook" ./cmd/hook-loop-hook
go build "${flags[@]}" -o "$tmp/hello" ./scripts/benchrun/hello
go build -o "$tmp/benchrun" ./scripts/benchrun
for b in hook-loop hook-loop-hook; do
  [ -e "$tmp/base/$b" ] || continue
  printf 'binary size of %s: %s %d bytes, this tree %d bytes\n' "$b" "$base" "$(wc -c <"$tmp/base/$b")" "$(wc -c <"$tmp/new/$b")" >&2
done
as=() bs=()
for r in $(seq "${ROUNDS:-3}"); do
  for b in base new; do
    echo "round $r: $b" >&2
    # -bin is what the build's installs write.
    bin=(-bin "$tmp/$b/hook-loop")
    if [ -e "$tmp/$b/hook-loop-hook" ]; then
      bin=(-bin "$tmp/$b/hook-loop-hook" -full "$tmp/$b/hook-loop")
    fi
    off=()
    if [ "$b" = base ]; then
      off=(HOOK_LOOP_HOOKD=off HOOK_LOOP_PG_KEEPER=off)
    fi
    env "${off[@]}" "$tmp/benchrun" "${bin[@]}" -hello "$tmp/hello" -work "$tmp/work-$b" -runs "${RUNS:-40}" \
      -sizes "${SIZES:-10000,1000000}" -json "$tmp/$b-$r.json" >/dev/null
    # One process per event: none of the build's binaries may still run.
    if left=$(pgrep -f "^$tmp/$b/" 2>/dev/null); then
      echo "round $r: $b left processes running: $(echo $left)" >&2
      kill $left 2>/dev/null || true
    fi
  done
  as+=("$tmp/base-$r.json") bs+=("$tmp/new-$r.json")
done
join() { local IFS=,; echo "$*"; }
compare=("$tmp/benchrun" compare -a "$(join "${as[@]}")" -b "$(join "${bs[@]}")" -a-name "$base" -b-name "this tree" -limit "${LIMIT:-1.10}")
if [ "$base_lean" = 1 ]; then
  # Each binary against its own kind.
  "${compare[@]}"
else
  echo "What installs write: hook-loop at $base, hook-loop-hook in this tree."
  echo
  "${compare[@]}" -a-binary hook-loop -b-binary hook-loop-hook
  echo
  echo "The same binary: hook-loop at $base and in this tree."
  echo
  "${compare[@]}" -a-binary hook-loop -b-binary hook-loop
fi
