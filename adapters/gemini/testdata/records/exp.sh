#!/bin/bash
# $1 = experiment name, $2 = hook script body for AfterAgent, $3 = timeout ms
set -u
here=$(cd "$(dirname "$0")" && pwd)
name=$1; hookcmd=$2; to=${3:-30000}
d=${WORK:-/tmp/gemini-records}/$name; rm -rf $d; mkdir -p $d/home/.gemini $d/proj/.gemini
echo '{"security":{"auth":{"selectedType":"gemini-api-key"}}}' > $d/home/.gemini/settings.json
cat > $d/proj/.gemini/settings.json <<J
{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"$hookcmd","timeout":$to}]}],
"BeforeAgent":[{"hooks":[{"type":"command","command":"cat >> $d/before.log; echo >> $d/before.log","timeout":$to}]}]}}
J
cd $d && git init -q proj 2>/dev/null
# the recorded mock, answering every agent request with the text "done"
sed 's/^    if users <= 1 and fresp == 0:/    return [{"text": "done"}]\n    if users <= 1 and fresp == 0:/' "$here/../harness/gemini_mock.py" > $d/mock_text.py
MOCK_LOG=$d/mock.jsonl MOCK_PORT_FILE=$d/port python3 $d/mock_text.py & mp=$!
for i in 1 2 3 4 5 6 7 8 9 10; do [ -s $d/port ] && break; sleep 0.3; done
cd $d/proj
start=$(date +%s)
timeout 300 env -i PATH="$HARNESS_BIN:/usr/bin:/bin" HOME="$d/home" TERM=dumb GEMINI_API_KEY=dummy \
  GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$(cat $d/port) GEMINI_CLI_TRUST_WORKSPACE=true \
  gemini -p "Do it." --yolo > $d/stdout 2> $d/stderr
echo "exit=$? secs=$(( $(date +%s)-start ))" > $d/result
kill $mp
