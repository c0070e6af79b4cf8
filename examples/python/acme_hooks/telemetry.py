"""telemetry: one JSON line per point to a file; decides nothing.

Declared as a `module` entry, kept alive by default (imported once, reused by
every hook event until it idles out):

    - name: telemetry
      module: acme_hooks.telemetry:Telemetry
      with: {file: /tmp/hook-loop-telemetry.jsonl}
"""

import json
import time

from hook_loop_hooks import LifecycleHooks


class Telemetry(LifecycleHooks):
    def __init__(self, file="/tmp/hook-loop-telemetry.jsonl"):
        self.file = file

    def _send(self, ctx):
        with open(self.file, "a") as f:
            f.write(json.dumps({"ts": time.time(), "point": ctx.point, **ctx.to_params()}) + "\n")
        return None

    loop_start = session_start = input_received = tool_requested = _send
    phase_changed = waiting_for_input = loop_complete = _send
