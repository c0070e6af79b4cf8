#!/usr/bin/env bash
# Installs the real harness binaries the end-to-end suites run, from npm, into an
# ignored folder of the repo (.cache/harnesses). Idempotent: a version already
# installed is kept. Prints one line per harness; a harness that cannot be
# installed is reported, and its suite skips saying so.
#
#   scripts/install-harnesses.sh            # all of them
#   scripts/install-harnesses.sh codex pi   # some
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${HOOK_LOOP_HARNESS_DIR:-$root/.cache/harnesses}

declare -A pkg=(
  [codex]="@openai/codex@0.169.0"
  [claude]="@anthropic-ai/claude-code@2.1.328"
  [opencode]="opencode-ai@1.18.33"
  [pi]="@mariozechner/pi-coding-agent@0.73.1"
  [gemini]="@google/gemini-cli@0.61.0"
  [copilot]="@github/copilot@1.0.102"
  [qwen]="@qwen-code/qwen-code@0.24.4"
)
declare -A bin=([codex]=codex [claude]=claude [opencode]=opencode [pi]=pi [gemini]=gemini [copilot]=copilot [qwen]=qwen)

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(codex claude opencode pi gemini copilot qwen)

if ! command -v npm >/dev/null 2>&1; then
  echo "install-harnesses: npm not found; end-to-end suites will skip"
  exit 0
fi

status=0
for h in "${want[@]}"; do
  spec=${pkg[$h]:-}
  if [ -z "$spec" ]; then echo "install-harnesses: unknown harness $h"; status=1; continue; fi
  dir=$dest/$h
  stamp=$dir/.installed-$(echo "$spec" | tr '/@' '__')
  if [ -f "$stamp" ] && [ -x "$dir/node_modules/.bin/${bin[$h]}" ]; then
    echo "install-harnesses: $h ready ($spec)"
    continue
  fi
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  if (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$spec" >"$dir/npm.log" 2>&1) \
     && [ -x "$dir/node_modules/.bin/${bin[$h]}" ]; then
    touch "$stamp"
    echo "install-harnesses: $h installed ($spec)"
  else
    echo "install-harnesses: $h could not be installed ($spec); see $dir/npm.log"
    tail -5 "$dir/npm.log" | sed 's/^/  /'
  fi
done
exit $status
