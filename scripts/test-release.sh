#!/usr/bin/env bash
# Checks the release as a user meets it, offline: builds the snapshot
# (scripts/release.sh --snapshot: every archive, SHA256SUMS, SBOMs, the Homebrew
# formula and the npm tarballs), then
#  - npm: `npm install -g --prefix DIR` of the hook-loop tarball plus this
#    platform's gives DIR/bin/hook-loop, which prints the stamped version,
#    installs into a project and answers a hook;
#  - install.sh: from a file server on loopback holding the archives, it
#    installs both binaries, and refuses an archive that does not match
#    SHA256SUMS.
# --reuse checks the dist/ of an earlier snapshot instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != --reuse ]; then
  scripts/release.sh --snapshot
fi

version=$(node -p 'require("./dist/metadata.json").version')
# A snapshot's version ends in its short commit, which `hook-loop version` names in full.
commit=${version##*-}
os=$(node -p 'process.platform') arch=$(node -p 'process.arch')
fail() { echo "test-release: FAIL: $*" >&2; exit 1; }

for f in dist/SHA256SUMS dist/homebrew/Formula/hook-loop.rb \
  "dist/npm/hook-loop-$version.tgz" "dist/npm/hook-loop-$os-$arch-$version.tgz"; do
  [ -s "$f" ] || fail "$f is missing"
done
for target in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64; do
  ext=tar.gz; [ "${target%_*}" = windows ] && ext=zip
  a="hook-loop_${version}_${target}.$ext"
  grep -q " $a\$" dist/SHA256SUMS || fail "$a is not in SHA256SUMS"
  [ -s "dist/hook-loop_${version}_${target}.cdx.json" ] || fail "no SBOM for $target"
done
grep -q 'bin.install "hook-loop-hook"' dist/homebrew/Formula/hook-loop.rb || fail "the formula does not install hook-loop-hook"
(cd dist && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the files"

work=$(mktemp -d "${TMPDIR:-/tmp}/hook-loop-release.XXXXXX")
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# answer_hook BIN LEAN PROJECT: installs hook-loop for Claude Code into
# PROJECT with BIN, checks that the hooks run the lean binary LEAN, runs the
# Stop hook command it wrote, and checks that the stop is refused (the loop
# has not started, so it is not in a terminal state).
answer_hook() {
  local bin=$1 lean=$2 proj=$3
  mkdir -p "$proj" && git -C "$proj" init -q
  (cd "$proj" && "$bin" install claude --write) > "$work/install.out" || fail "$bin install claude: $(cat "$work/install.out")"
  local cmd
  cmd=$(node -e 'const s=require(process.argv[1]); console.log(s.hooks.Stop[0].hooks[0].command)' "$proj/.claude/settings.json")
  case $cmd in
    "$lean "*) echo "  hook command: $cmd" ;;
    *) fail "the hook command does not run the lean $lean: $cmd" ;;
  esac
  local out
  out=$(printf '{"session_id":"s1","transcript_path":"","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}' "$proj" |
    CLAUDE_PROJECT_DIR=$proj sh -c "$cmd") || fail "the Stop hook exited $?"
  case $out in
    *'"decision":"block"'*"cannot stop yet"*) echo "  $bin answered the Stop hook: refused, as the loop is not done" ;;
    *) fail "the Stop hook's answer is not a refusal: $out" ;;
  esac
}

echo "== npm install -g of the tarballs (offline)"
prefix="$work/npm-global"
# ./ makes npm read a path, not a GitHub owner/repo. Offline, the optional
# dependencies the registry would bring are skipped; the launcher finds the
# platform package installed beside it.
npm install -g --prefix "$prefix" --offline --no-audit --no-fund --loglevel=error \
  "./dist/npm/hook-loop-$version.tgz" "./dist/npm/hook-loop-$os-$arch-$version.tgz"
got=$("$prefix/bin/hook-loop" --version)
[ "$got" = "hook-loop version $version" ] || fail "$prefix/bin/hook-loop --version printed '$got', want the stamped $version"
# The date stamped is the commit's, so that a rebuild of it is the same bytes.
date=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd HEAD)
"$prefix/bin/hook-loop" version | grep -q "^hook-loop $version (commit $commit[0-9a-f]*, built $date" || fail "hook-loop version: $("$prefix/bin/hook-loop" version), want the commit's date $date"
echo "  $prefix/bin/hook-loop --version: $got"
answer_hook "$prefix/bin/hook-loop" "$prefix/lib/node_modules/hook-loop-$os-$arch/bin/hook-loop-hook" "$work/npm-proj"
(cd "$work/npm-proj" && "$prefix/bin/hook-loop" doctor --harness claude) > "$work/doctor.out" || fail "doctor through the npm launcher: $(cat "$work/doctor.out")"

echo "== install.sh from a file server on loopback"
mkdir -p "$work/www/good" "$work/www/bad"
cp dist/*.tar.gz dist/*.zip dist/SHA256SUMS "$work/www/good/"
cp dist/*.tar.gz dist/*.zip "$work/www/bad/"
# bad: every archive's checksum is wrong.
awk '{ printf "%064d  %s\n", 0, $2 }' dist/SHA256SUMS > "$work/www/bad/SHA256SUMS"
node -e '
const http = require("http"), fs = require("fs"), path = require("path");
const root = process.argv[1];
const srv = http.createServer((req, res) => {
  const p = path.join(root, path.normalize(decodeURIComponent(req.url)).replace(/^(\.\.[\/\\])+/, ""));
  fs.readFile(p, (err, data) => { if (err) { res.writeHead(404); res.end(); } else { res.end(data); } });
});
srv.listen(0, "127.0.0.1", () => fs.writeFileSync(path.join(root, "..", "port"), String(srv.address().port)));
' "$work/www" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || fail "the file server did not start"
base="http://127.0.0.1:$(cat "$work/port")"
sh install.sh --version "$version" --base-url "$base/good" --dir "$work/bin" || fail "install.sh failed"
got=$("$work/bin/hook-loop" --version)
[ "$got" = "hook-loop version $version" ] || fail "installed hook-loop --version printed '$got'"
[ -x "$work/bin/hook-loop-hook" ] || fail "install.sh did not install hook-loop-hook"
answer_hook "$work/bin/hook-loop" "$work/bin/hook-loop-hook" "$work/sh-proj"
if sh install.sh --version "$version" --base-url "$base/bad" --dir "$work/bin-bad" 2> "$work/bad.err"; then
  fail "install.sh installed an archive that does not match SHA256SUMS"
fi
grep -q "does not match SHA256SUMS" "$work/bad.err" || fail "install.sh's refusal does not say why: $(cat "$work/bad.err")"
[ ! -e "$work/bin-bad/hook-loop" ] || fail "install.sh left a binary after a checksum mismatch"
echo "  install.sh installed $version into $work/bin, and refused a tampered archive"
echo "release checks passed"
