"""hook_loop_hooks — write hook-loop lifecycle hooks in Python (stdlib only).

    from hook_loop_hooks import LifecycleHooks, LoopStart, serve_stdio

    class Roster(LifecycleHooks):
        def loop_start(self, ctx: LoopStart):
            if ctx.harness != "claude":
                ctx.proceed = False
                ctx.reason = "this loop runs under Claude Code only"
                return ctx
            return None                      # pass through unchanged

    if __name__ == "__main__":
        serve_stdio(Roster())

Declare it in ~/.config/hook-loop/config.yaml (``path: hooks/roster.py`` or
``module: roster:Roster``); see README.md.
"""

from .base import (HOOK_FAILED, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
                   PARSE_ERROR, HookError, LifecycleHooks, handle, handle_request)
from .contexts import (DESIGN_ALIASES, POINTS, Context, InputReceived, LoopComplete,
                       LoopStart, PhaseChanged, SessionSpawned, SessionStart, ToolRequested,
                       WaitingForInput, context_class)
from .server import KEEPALIVE_ENV, HookServer, serve_lines, serve_stdio

__version__ = "0.1.0"

__all__ = [
    "LifecycleHooks", "handle_request", "handle", "HookError", "HookServer", "serve_stdio",
    "serve_lines", "KEEPALIVE_ENV", "Context", "LoopStart", "SessionStart", "SessionSpawned", "InputReceived",
    "ToolRequested", "PhaseChanged", "WaitingForInput", "LoopComplete", "POINTS", "DESIGN_ALIASES",
    "context_class", "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS",
    "HOOK_FAILED",
]
