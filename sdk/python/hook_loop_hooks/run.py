"""Serve a LifecycleHooks class over stdio:

    python3 -m hook_loop_hooks.run pkg.mod:Class     # one request, then exit
    python3 -m hook_loop_hooks.run --lines pkg.mod   # one request per line (kept alive)

Without ``:Class`` the module's one LifecycleHooks subclass is served. The
class is built with the request's ``with`` object as keyword arguments when its
constructor takes them (``with: {team: platform}`` → ``Class(team="platform")``),
else with none. hook-loop runs this for a ``module`` entry; with
HOOK_LOOP_KEEPALIVE=1 in the environment it serves lines as --lines does.
"""

import importlib
import inspect
import json
import os
import sys

from .base import LifecycleHooks, handle_request, _encode, _error, HOOK_FAILED
from .server import KEEPALIVE_ENV


def load_class(spec: str):
    """Import ``pkg.mod:Class`` (or ``pkg.mod``: its one LifecycleHooks subclass)."""
    modname, _, clsname = spec.partition(":")
    module = importlib.import_module(modname)
    if clsname:
        obj = module
        for part in clsname.split("."):
            obj = getattr(obj, part)
        return obj
    found = [v for v in vars(module).values()
             if inspect.isclass(v) and issubclass(v, LifecycleHooks) and v is not LifecycleHooks
             and v.__module__ == module.__name__]
    if len(found) != 1:
        raise ImportError("%s defines %d LifecycleHooks subclasses; name one as %s:Class"
                          % (modname, len(found), modname))
    return found[0]


class _Instances:
    """One instance per distinct ``with`` object, built on first use."""

    def __init__(self, cls):
        self.cls = cls
        self.made = {}

    def get(self, with_):
        key = json.dumps(with_ or {}, sort_keys=True)
        if key not in self.made:
            kwargs = dict(with_ or {})
            try:
                inspect.signature(self.cls).bind(**kwargs)
            except TypeError:
                kwargs = {}
            self.made[key] = self.cls(**kwargs)
        return self.made[key]


def _answer(instances, line: bytes) -> bytes:
    try:
        req = json.loads(line)
    except ValueError:
        return handle_request(LifecycleHooks(), line)  # the parse error answer
    try:
        params = req.get("params") if isinstance(req, dict) else None
        with_ = params.get("with") if isinstance(params, dict) else None
        hooks = instances.get(with_ if isinstance(with_, dict) else None)
    except Exception as e:  # a constructor that raises is the call's failure
        rid = req.get("id") if isinstance(req, dict) else None
        return _encode(_error(rid, HOOK_FAILED, "cannot build %s: %s" % (instances.cls.__name__, e)))
    return handle_request(hooks, req)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lines = os.environ.get(KEEPALIVE_ENV) == "1"
    if "--lines" in argv:
        argv.remove("--lines")
        lines = True
    if len(argv) != 1:
        print("usage: python3 -m hook_loop_hooks.run [--lines] pkg.mod[:Class]", file=sys.stderr)
        return 2
    try:
        cls = load_class(argv[0])
    except Exception as e:
        print("hook_loop_hooks.run: cannot load %s: %s" % (argv[0], e), file=sys.stderr)
        return 1
    instances = _Instances(cls)
    out = sys.stdout.buffer
    if lines:
        for line in sys.stdin.buffer:
            if line.strip():
                out.write(_answer(instances, line) + b"\n")
                out.flush()
        return 0
    out.write(_answer(instances, sys.stdin.buffer.read()) + b"\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
