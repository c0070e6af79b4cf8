#!/bin/sh
# Installs hook-loop and hook-loop-hook from a release archive:
#
#   curl -fsSL https://raw.githubusercontent.com/hook-loop/hook-loop/main/install.sh | sh
#   sh install.sh --version 0.3.0 --dir /usr/local/bin
#
# It picks the archive for this OS and CPU, checks it against the release's
# SHA256SUMS, and puts both binaries in --dir (default ~/.local/bin), side by
# side: installs write hook-loop-hook into the harnesses' hooks only when it
# sits beside hook-loop.
# Options (or environment): --version V (HOOK_LOOP_VERSION; default: the latest
# release), --dir D (HOOK_LOOP_INSTALL_DIR), --base-url URL (HOOK_LOOP_BASE_URL:
# where the archives and SHA256SUMS are; default: the GitHub release of V).
set -eu

repo=https://github.com/hook-loop/hook-loop
version=${HOOK_LOOP_VERSION:-}
dir=${HOOK_LOOP_INSTALL_DIR:-$HOME/.local/bin}
base=${HOOK_LOOP_BASE_URL:-}

die() { echo "install.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --version) [ $# -ge 2 ] || die "--version needs a value"; version=$2; shift 2 ;;
    --dir) [ $# -ge 2 ] || die "--dir needs a value"; dir=$2; shift 2 ;;
    --base-url) [ $# -ge 2 ] || die "--base-url needs a value"; base=$2; shift 2 ;;
    -h|--help)
      # The header above; piped into sh there is no file to read it from.
      if [ -f "$0" ]; then sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; else echo "usage: sh install.sh [--version V] [--dir D] [--base-url URL]"; fi
      exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW*|MSYS*|CYGWIN*) os=windows ;;
  *) die "no release for $(uname -s): build from source with go install (see $repo#install)" ;;
esac
case $(uname -m) in
  x86_64|amd64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) die "no release for $(uname -m): build from source with go install (see $repo#install)" ;;
esac

if command -v curl >/dev/null 2>&1; then
  fetch() { curl -fsSL -o "$2" "$1"; }
  final_url() { curl -fsSLI -o /dev/null -w '%{url_effective}' "$1"; }
elif command -v wget >/dev/null 2>&1; then
  fetch() { wget -q -O "$2" "$1"; }
  final_url() { wget -q --max-redirect=5 -S --spider "$1" 2>&1 | sed -n 's/^ *Location: *//p' | tail -n 1; }
else
  die "needs curl or wget"
fi

if [ -z "$version" ]; then
  [ -z "$base" ] || die "--base-url needs --version"
  tag=$(final_url "$repo/releases/latest") || die "cannot find the latest release at $repo/releases/latest"
  version=${tag##*/}
fi
version=${version#v}
[ -n "$base" ] || base="$repo/releases/download/v$version"

ext=tar.gz
[ "$os" = windows ] && ext=zip
archive="hook-loop_${version}_${os}_${arch}.$ext"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hook-loop-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "downloading $base/$archive"
fetch "$base/$archive" "$tmp/$archive" || die "download $base/$archive failed"
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || die "download $base/SHA256SUMS failed"

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "$archive is not listed in SHA256SUMS"
if command -v sha256sum >/dev/null 2>&1; then
  got=$(sha256sum "$tmp/$archive" | awk '{print $1}')
elif command -v shasum >/dev/null 2>&1; then
  got=$(shasum -a 256 "$tmp/$archive" | awk '{print $1}')
else
  die "needs sha256sum or shasum to verify the download"
fi
[ "$got" = "$want" ] || die "$archive: checksum $got does not match SHA256SUMS ($want); nothing installed"

mkdir -p "$tmp/x"
if [ "$ext" = zip ]; then
  unzip -q "$tmp/$archive" -d "$tmp/x"
else
  tar -xzf "$tmp/$archive" -C "$tmp/x"
fi
exe=
[ "$os" = windows ] && exe=.exe
mkdir -p "$dir"
for b in hook-loop hook-loop-hook; do
  [ -f "$tmp/x/$b$exe" ] || die "$archive holds no $b$exe"
  # Written beside the old one, then moved over it: a hook running the old
  # binary at that moment keeps its copy.
  cp "$tmp/x/$b$exe" "$dir/.$b$exe.new"
  chmod 755 "$dir/.$b$exe.new"
  mv -f "$dir/.$b$exe.new" "$dir/$b$exe"
done
echo "installed hook-loop $version ($os/$arch) into $dir: hook-loop$exe, hook-loop-hook$exe"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "$dir is not on your PATH: add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
