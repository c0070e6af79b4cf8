import io
import json
import os
import re
import ssl
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.error
import urllib.request
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(SDK))
sys.path.insert(0, SDK)

import hook_loop_hooks as h  # noqa: E402


def req(method, params=None, id_=1):
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}


class Roster(h.LifecycleHooks):
    def loop_start(self, ctx):
        if ctx.harness != "claude":
            ctx.proceed = False
            ctx.reason = ctx.harness + " refused"
            return ctx
        return None


class ContextsTest(unittest.TestCase):
    def test_points_match_hook_loop(self):
        """The classes carry exactly the facts and decisions `hook-loop hooks points --json` prints."""
        out = subprocess.run(["go", "run", ".", "hooks", "points", "--json"], cwd=REPO,
                             capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            self.skipTest("go run failed: " + out.stderr[-300:])
        for p in json.loads(out.stdout):
            cls = h.POINTS[p["name"]]
            wire = set(cls().to_params()) | {"with"}
            want = {f["Name"] for f in p["facts"]} | {f["Name"] for f in p["decisions"]}
            self.assertEqual(wire, want, p["name"])
            self.assertEqual(set(cls.decisions), {f["Name"] for f in p["decisions"]}, p["name"])
        self.assertEqual(list(h.POINTS), [p["name"] for p in json.loads(out.stdout)])

    def test_from_params_ignores_unknown_and_maps_keywords(self):
        c = h.PhaseChanged.from_params({"from": "a", "to": "b", "with": {"x": 1}, "novel": 3})
        self.assertEqual((c.from_, c.to, c.with_), ("a", "b", {"x": 1}))
        self.assertEqual(c.to_params()["from"], "a")
        self.assertEqual(c.to_params()["with"], {"x": 1})

    def test_design_method_names_and_announce(self):
        """A method named after the design's point handles hook-loop's; session_spawned's
        announce is text."""
        class Seed(h.LifecycleHooks):
            def work_item_start(self, ctx):
                ctx.proceed = False
                return ctx

            def session_spawned(self, ctx):
                ctx.announce = "watched by " + ctx.actor
                return ctx

        self.assertTrue(Seed().handles("loop_start"))
        ans = h.handle(Seed(), req("loop_start"))
        self.assertEqual(ans["result"], {"proceed": False})
        ans = h.handle(Seed(), req("session_spawned", {"actor": "agent"}))
        self.assertEqual(ans["result"], {"announce": "watched by agent"})

        class Bad(h.LifecycleHooks):
            def session_spawned(self, ctx):
                return {"announce": True}
        self.assertIn("error", h.handle(Bad(), req("session_spawned")))

    def test_defaults(self):
        self.assertTrue(h.LoopStart().proceed)
        self.assertTrue(h.PhaseChanged().notify)
        self.assertTrue(h.LoopComplete().announce)


class HandleTest(unittest.TestCase):
    def test_handles(self):
        self.assertTrue(Roster().handles("loop_start"))
        self.assertFalse(Roster().handles("session_start"))
        self.assertFalse(Roster().handles("nope"))

    def test_refusal(self):
        r = h.handle(Roster(), req("loop_start", {"harness": "codex"}))
        self.assertEqual(r, {"jsonrpc": "2.0", "id": 1, "result": {"proceed": False, "reason": "codex refused"}})

    def test_none_is_null_even_after_edit(self):
        class Sneaky(h.LifecycleHooks):
            def loop_start(self, ctx):
                ctx.proceed = False
                return None
        self.assertIsNone(h.handle(Sneaky(), req("loop_start"))["result"])

    def test_unhandled_point_is_null(self):
        self.assertIsNone(h.handle(Roster(), req("loop_complete"))["result"])

    def test_dict_answer_keeps_decisions_only(self):
        class D(h.LifecycleHooks):
            def loop_complete(self, ctx):
                return {"announce": False, "colour": "red", "outcome": "x"}
        self.assertEqual(h.handle(D(), req("loop_complete"))["result"], {"announce": False})

    def test_changed_fact_ignored(self):
        class F(h.LifecycleHooks):
            def loop_start(self, ctx):
                ctx.harness = "pi"
                return ctx
        self.assertIsNone(h.handle(F(), req("loop_start", {"harness": "codex"}))["result"])

    def test_wrong_type_is_failure(self):
        class W(h.LifecycleHooks):
            def loop_start(self, ctx):
                ctx.proceed = "yes"
                return ctx
        r = h.handle(W(), req("loop_start"))
        self.assertEqual(r["error"]["code"], h.HOOK_FAILED)
        self.assertIn("proceed", r["error"]["message"])

    def test_raise_never_escapes(self):
        class R(h.LifecycleHooks):
            def loop_start(self, ctx):
                raise RuntimeError("boom")
        with mock.patch("sys.stderr", io.StringIO()):
            r = json.loads(h.handle_request(R(), json.dumps(req("loop_start", id_=7))))
        self.assertEqual(r["id"], 7)
        self.assertIn("boom", r["error"]["message"])

    def test_protocol_errors(self):
        self.assertEqual(json.loads(h.handle_request(Roster(), b"{nope"))["error"]["code"], h.PARSE_ERROR)
        self.assertEqual(h.handle(Roster(), [1])["error"]["code"], h.INVALID_REQUEST)
        self.assertEqual(h.handle(Roster(), {"id": 1, "method": "loop_start"})["error"]["code"], h.INVALID_REQUEST)
        self.assertEqual(h.handle(Roster(), req("work_item_start"))["error"]["code"], h.METHOD_NOT_FOUND)
        bad = {"jsonrpc": "2.0", "id": 1, "method": "loop_start", "params": [1]}
        self.assertEqual(h.handle(Roster(), bad)["error"]["code"], h.INVALID_PARAMS)


class TransportTest(unittest.TestCase):
    def test_serve_stdio_one_request(self):
        out = io.BytesIO()
        with mock.patch.dict(os.environ, {h.KEEPALIVE_ENV: ""}):
            h.serve_stdio(Roster(), io.BytesIO(json.dumps(req("loop_start", {"harness": "pi"})).encode()), out)
        self.assertFalse(json.loads(out.getvalue())["result"]["proceed"])

    def test_serve_stdio_lines_when_kept_alive(self):
        lines = b"".join(json.dumps(req("loop_start", {"harness": x}, i)).encode() + b"\n"
                         for i, x in enumerate(["pi", "claude"]))
        out = io.BytesIO()
        with mock.patch.dict(os.environ, {h.KEEPALIVE_ENV: "1"}):
            h.serve_stdio(Roster(), io.BytesIO(lines), out)
        answers = [json.loads(x) for x in out.getvalue().splitlines()]
        self.assertEqual([a["id"] for a in answers], [0, 1])
        self.assertIsNone(answers[1]["result"])

    def _serve(self, **kw):
        srv = h.HookServer(Roster(), host="127.0.0.1", port=0, **kw)
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        self.addCleanup(srv.shutdown)
        return srv

    def _post(self, url, body, headers=None, context=None):
        r = urllib.request.Request(url, data=body, headers=headers or {}, method="POST")
        with urllib.request.urlopen(r, timeout=10, context=context) as resp:
            return resp.status, json.loads(resp.read())

    def test_http_token_and_health(self):
        with mock.patch.dict(os.environ, {"T_TOKEN": "s3cret"}):
            srv = self._serve(token_env="T_TOKEN")
            url = "http://127.0.0.1:%d" % srv.server_address[1]
            with urllib.request.urlopen(url + "/health", timeout=10) as resp:
                self.assertEqual(json.loads(resp.read()), {"ok": True})
            body = json.dumps(req("loop_start", {"harness": "pi"})).encode()
            with self.assertRaises(urllib.error.HTTPError) as e:
                self._post(url + "/hook", body)
            self.assertEqual(e.exception.code, 401)
            with self.assertRaises(urllib.error.HTTPError):
                self._post(url + "/hook", body, {"Authorization": "Bearer wrong"})
            status, ans = self._post(url + "/hook", body, {"Authorization": "Bearer s3cret"})
            self.assertEqual((status, ans["result"]["proceed"]), (200, False))

    def test_keep_alive_survives_a_refusal(self):
        """One kept-alive connection: a bad token, then a good one, both answered in turn."""
        import http.client
        with mock.patch.dict(os.environ, {"T_TOKEN": "s3cret"}):
            srv = self._serve(token_env="T_TOKEN")
            conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
            self.addCleanup(conn.close)
            body = json.dumps(req("loop_start", {"harness": "pi"})).encode()
            conn.request("POST", "/hook", body, {"Authorization": "Bearer wrong", "Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            self.assertEqual(r.status, 401)
            sock = conn.sock
            conn.request("POST", "/hook", body, {"Authorization": "Bearer s3cret", "Content-Type": "application/json"})
            r = conn.getresponse()
            ans = json.loads(r.read())
            self.assertIs(conn.sock, sock, "the connection was not kept alive")
            self.assertEqual((r.status, ans["result"]["proceed"]), (200, False))

    def test_https(self):
        d = tempfile.mkdtemp()
        cert, key = os.path.join(d, "c.pem"), os.path.join(d, "k.pem")
        gen = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                              "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                              "-addext", "subjectAltName=IP:127.0.0.1"], capture_output=True)
        if gen.returncode != 0:
            self.skipTest("openssl cannot make a test certificate")
        sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        sctx.load_cert_chain(cert, key)
        srv = self._serve(ssl_context=sctx)
        cctx = ssl.create_default_context(cafile=cert)
        status, ans = self._post("https://127.0.0.1:%d/" % srv.server_address[1],
                                 json.dumps(req("loop_start", {"harness": "claude"})).encode(), context=cctx)
        self.assertEqual((status, ans["result"]), (200, None))


class RunnerTest(unittest.TestCase):
    def run_mod(self, spec, stdin, *args, env=None):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "teammod.py"), "w") as f:
            f.write("from hook_loop_hooks import LifecycleHooks\n"
                    "class Team(LifecycleHooks):\n"
                    "    def __init__(self, team='none'):\n"
                    "        self.team = team\n"
                    "    def loop_complete(self, ctx):\n"
                    "        return {'announce': self.team != 'quiet'}\n")
        e = dict(os.environ, PYTHONPATH=SDK + os.pathsep + d, **(env or {}))
        e.pop(h.KEEPALIVE_ENV, None)
        e.update(env or {})
        return subprocess.run([sys.executable, "-m", "hook_loop_hooks.run", *args, spec], input=stdin,
                              capture_output=True, env=e, timeout=30)

    def test_with_becomes_kwargs(self):
        out = self.run_mod("teammod:Team", json.dumps(req("loop_complete", {"with": {"team": "quiet"}})).encode())
        self.assertEqual(json.loads(out.stdout)["result"], {"announce": False}, out.stderr)

    def test_module_without_class_and_lines(self):
        body = b"".join(json.dumps(req("loop_complete", {"with": {"team": t}}, i)).encode() + b"\n"
                        for i, t in enumerate(["quiet", "loud"]))
        out = self.run_mod("teammod", body, "--lines")
        answers = [json.loads(x) for x in out.stdout.splitlines()]
        self.assertEqual([a["result"] for a in answers], [{"announce": False}, None], out.stderr)

    def test_unloadable(self):
        out = self.run_mod("nosuchmod:X", b"{}")
        self.assertEqual(out.returncode, 1)
        self.assertIn(b"cannot load nosuchmod", out.stderr)


class ReadmeTest(unittest.TestCase):
    """The README's examples run as written."""

    def blocks(self):
        with open(os.path.join(SDK, "README.md")) as f:
            return re.findall(r"```python\n(.*?)```", f.read(), re.S)

    def test_acme_example(self):
        src = self.blocks()[0]
        ns = {"__name__": "acme"}
        exec(compile(src, "README acme", "exec"), ns)
        acme = ns["Acme"]()
        r = h.handle(acme, req("loop_start", {"harness": "pi"}))
        self.assertEqual(r["result"], {"proceed": False, "reason": "pi is not on the delivery roster"})
        self.assertIsNone(h.handle(acme, req("loop_start", {"harness": "claude"}))["result"])
        r = h.handle(acme, req("session_start", {"context": "loop text"}))
        self.assertTrue(r["result"]["context"].endswith("\n\nloop text"))
        with mock.patch("sys.stderr", io.StringIO()) as err:
            self.assertIsNone(h.handle(acme, req("loop_complete", {"outcome": "completed"}))["result"])
        self.assertIn("loop.ended", err.getvalue())

    def test_server_and_mount_examples(self):
        acme_src, server_src, mount_src = self.blocks()
        acme = type(sys)("acme")
        exec(compile(acme_src, "acme", "exec"), acme.__dict__)
        started = {}

        class FakeServer(h.HookServer):
            def serve_forever(self):
                started["addr"] = self.server_address
                self.httpd.server_close()
        with mock.patch.dict(sys.modules, {"acme": acme}), \
                mock.patch.object(h, "HookServer", FakeServer), \
                mock.patch("socket.socket.bind"):
            exec(compile(server_src, "server", "exec"), {})
        self.assertIn("addr", started)

        class App:
            def post(self, path):
                def deco(fn):
                    self.fn = fn
                    return fn
                return deco

        class Request:
            async def body(self):
                return json.dumps(req("loop_start", {"harness": "pi"})).encode()
        app = App()
        ns = {"app": app, "Response": lambda body, media_type: body, "Acme": acme.Acme}
        exec(compile(mount_src, "mount", "exec"), ns)
        import asyncio
        body = asyncio.run(app.fn(Request()))
        self.assertFalse(json.loads(body)["result"]["proceed"])


if __name__ == "__main__":
    unittest.main()
