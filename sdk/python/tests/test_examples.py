"""The Python examples (examples/python) run through the SDK's runner as
hook-loop runs them."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.dirname(HERE)
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(SDK)), "examples", "python")


def call(argv, request):
    env = dict(os.environ, PYTHONPATH=SDK + os.pathsep + EXAMPLES)
    env.pop("HOOK_LOOP_KEEPALIVE", None)
    out = subprocess.run(argv, input=json.dumps(request).encode(), capture_output=True,
                         env=env, cwd=EXAMPLES, timeout=30)
    return json.loads(out.stdout), out.stderr


class ExamplesTest(unittest.TestCase):
    def test_roster_path(self):
        req = {"jsonrpc": "2.0", "id": 1, "method": "loop_start",
               "params": {"session_id": "intruder", "with": {"sessions": ["a"]}}}
        ans, err = call([sys.executable, os.path.join(EXAMPLES, "roster.py")], req)
        self.assertEqual(ans["result"], {"proceed": False, "reason": "session intruder is not on the roster"}, err)
        req["params"]["session_id"] = "a"
        ans, err = call([sys.executable, os.path.join(EXAMPLES, "roster.py")], req)
        self.assertIsNone(ans["result"], err)

    def test_telemetry_module(self):
        out = os.path.join(tempfile.mkdtemp(), "t.jsonl")
        req = {"jsonrpc": "2.0", "id": 2, "method": "loop_complete",
               "params": {"outcome": "completed", "with": {"file": out}}}
        ans, err = call([sys.executable, "-m", "hook_loop_hooks.run", "acme_hooks.telemetry:Telemetry"], req)
        self.assertIsNone(ans["result"], err)
        with open(out) as f:
            line = json.loads(f.readline())
        self.assertEqual((line["point"], line["outcome"]), ("loop_complete", "completed"))


if __name__ == "__main__":
    unittest.main()
