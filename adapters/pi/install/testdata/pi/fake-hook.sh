#!/bin/sh
# Stands in for `hook-loop pi-hook` in the extension's behaviour test: saves argv,
# cwd and stdin to $FAKE_DIR/<n>-<event>.json and answers $FAKE_REPLY_<event>
# with exit $FAKE_EXIT_<event> (after $FAKE_SLEEP seconds, when set).
# It does not serve (like a hook-loop older than `serve`), so the extension
# answers every event one-shot, where the variables above take effect.
[ "${1:-}" = serve ] && exit 3
event=unknown
prev=
for a in "$@"; do
  [ "$prev" = "--event" ] && event=$a
  case $a in --event=*) event=${a#--event=} ;; esac
  prev=$a
done
n=$(ls "$FAKE_DIR" | wc -l)
input=$(cat)
printf '{"argv":"%s","cwd":"%s","stdin":%s}\n' "$*" "$PWD" "$input" > "$FAKE_DIR/$(printf %03d "$n")-$event.json"
# exec: the timeout kills this process itself, not a child holding the pipe
[ -n "${FAKE_SLEEP:-}" ] && exec sleep "$FAKE_SLEEP"
eval "reply=\${FAKE_REPLY_$event:-}"
eval "code=\${FAKE_EXIT_$event:-0}"
if [ -n "$reply" ]; then printf '%s\n' "$reply"; else printf '{"action":"allow","stopBlocks":0}\n'; fi
exit "$code"
