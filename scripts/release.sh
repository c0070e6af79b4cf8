#!/usr/bin/env bash
# Builds a release into dist/: GoReleaser's archives for linux/darwin/windows x
# amd64/arm64 (hook-loop and hook-loop-hook), dist/SHA256SUMS, an SBOM per
# archive, the Homebrew formula (dist/homebrew/Formula/hook-loop.rb), and the
# npm tarballs in dist/npm/.
#
#   scripts/release.sh --snapshot   offline, from any commit (version X.Y.Z-snapshot-COMMIT)
#   scripts/release.sh              from a tag: also publishes the GitHub release
#                                   and the formula (needs GITHUB_TOKEN); then
#                                   `npm publish` each dist/npm/*.tgz, platforms first
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned, and installed here rather than taken from PATH, so every release is
# built by the same GoReleaser. v2.15.1 is the fallback if a module of v2.17.0
# cannot be fetched.
GORELEASER_VERSION=${GORELEASER_VERSION:-v2.17.0}
CYCLONEDX_VERSION=v1.10.0
bin="$PWD/.cache/bin"
mkdir -p "$bin"
if ! "$bin/goreleaser" --version 2>/dev/null | grep -q "GitVersion: *${GORELEASER_VERSION}$"; then
  echo "installing goreleaser $GORELEASER_VERSION into .cache/bin"
  GOBIN="$bin" go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi
# GoReleaser's SBOM step runs this on each archive's binaries; it reads the
# modules Go embedded in them, so it needs no network.
if ! [ -x "$bin/cyclonedx-gomod" ]; then
  echo "installing cyclonedx-gomod $CYCLONEDX_VERSION into .cache/bin"
  GOBIN="$bin" go install "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$CYCLONEDX_VERSION"
fi
export PATH="$bin:$PATH"

# The commit the binaries name (hook-loop version): read here because
# GoReleaser leaves its own empty in a snapshot of a clone with no remote.
HOOK_LOOP_COMMIT=$(git rev-parse HEAD)
HOOK_LOOP_SHORT=$(git rev-parse --short=7 HEAD)
HOOK_LOOP_COMMIT_TIME=$(git log -1 --format=%ct HEAD)
# The date `hook-loop version` prints is the commit's, in UTC, not the
# build's: two builds of one commit are then byte for byte alike.
HOOK_LOOP_COMMIT_DATE=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd HEAD)
export HOOK_LOOP_COMMIT HOOK_LOOP_SHORT HOOK_LOOP_COMMIT_TIME HOOK_LOOP_COMMIT_DATE

args=(release --clean)
if [ "${1:-}" = "--snapshot" ]; then
  args+=(--snapshot)
fi
# GOFLAGS=-buildvcs=false (set on some machines) would hide nothing here: the
# version, commit and date come from ldflags.
goreleaser "${args[@]}"

node npm/pack.js dist
echo "release artifacts:"
(cd dist && ls -l ./*.tar.gz ./*.zip SHA256SUMS homebrew/Formula/*.rb npm/*.tgz 2>/dev/null | awk '{print "  " $5 "\t" $9}')
