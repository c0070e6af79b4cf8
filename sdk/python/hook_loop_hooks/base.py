"""LifecycleHooks, the base class a hook subclasses, and handle_request, the
server half of the JSON-RPC 2.0 wire."""

import json
import sys
import traceback
from typing import Any, Dict, Optional, Union

from .contexts import (POINTS, DECISION_TYPES, DESIGN_ALIASES, Context, InputReceived,
                       LoopComplete, LoopStart, PhaseChanged, SessionSpawned, SessionStart,
                       ToolRequested, WaitingForInput)

__all__ = ["LifecycleHooks", "handle_request", "handle", "HookError",
           "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "HOOK_FAILED"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
HOOK_FAILED = -32000


class HookError(Exception):
    """Raise from a hook method to fail the call with this message."""


class LifecycleHooks:
    """Subclass this and override the points you care about.

    Each method takes that point's context and returns None (pass through:
    nothing changes, even if the context was edited) or a context — the same
    one edited, or a rebuilt one — or a dict of decision fields. hook-loop reads
    back the decision fields only; a changed fact or an unknown key is ignored.
    A method that raises is that hook's failure: recorded, and skipped.
    """

    def loop_start(self, ctx: LoopStart) -> Optional[LoopStart]:
        return None

    def session_start(self, ctx: SessionStart) -> Optional[SessionStart]:
        return None

    def session_spawned(self, ctx: SessionSpawned) -> Optional[SessionSpawned]:
        return None

    def input_received(self, ctx: InputReceived) -> Optional[InputReceived]:
        return None

    def tool_requested(self, ctx: ToolRequested) -> Optional[ToolRequested]:
        return None

    def phase_changed(self, ctx: PhaseChanged) -> Optional[PhaseChanged]:
        return None

    def waiting_for_input(self, ctx: WaitingForInput) -> Optional[WaitingForInput]:
        return None

    def loop_complete(self, ctx: LoopComplete) -> Optional[LoopComplete]:
        return None

    def handles(self, point: str) -> bool:
        """Does this class override ``point``? An unknown point: False."""
        return self._method(point) is not None

    def _method(self, point: str):
        """The overriding method of ``point``: its own name, else a design name
        of it (``work_item_start`` for loop_start); None when not overridden."""
        if point not in POINTS:
            return None
        mine = getattr(type(self), point, None)
        if mine is not None and mine is not getattr(LifecycleHooks, point):
            return getattr(self, point)
        for design, name in DESIGN_ALIASES.items():
            if name == point and getattr(type(self), design, None) is not None:
                return getattr(self, design)
        return None


def _error(id_, code, message):
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def _decisions(ctx: Context, answer: Any) -> Optional[Dict[str, Any]]:
    """The decisions ``answer`` changes against ``ctx``'s values before the call."""
    if answer is None:
        return None
    if isinstance(answer, Context):
        if not isinstance(answer, type(ctx)):
            raise HookError("returned a %s at %s" % (type(answer).__name__, ctx.point))
        values = answer.decision_values()
    elif isinstance(answer, dict):
        values = {k: v for k, v in answer.items() if k in ctx.decisions}
    else:
        raise HookError("returned %s: expected None, the context or a dict of decisions"
                        % type(answer).__name__)
    before = ctx.decision_values()
    changed = {}
    for k, v in values.items():
        want = ctx.decision_types.get(k) or DECISION_TYPES.get(k, str)
        if type(v) is not want:  # bool is not an int here, nor an int a bool
            raise HookError("decision %r: expected %s, got %r" % (k, want.__name__, v))
        if v != before[k]:
            changed[k] = v
    return changed or None


def handle(hooks: LifecycleHooks, request: Any) -> Dict[str, Any]:
    """Answer one decoded JSON-RPC request (a dict) with one response dict.

    Never raises: a bad request or a hook that raises answers a JSON-RPC error.
    """
    try:
        if not isinstance(request, dict):
            return _error(None, INVALID_REQUEST, "invalid request: expected an object")
        id_ = request.get("id")
        method = request.get("method")
        if request.get("jsonrpc") != "2.0" or not isinstance(method, str):
            return _error(id_, INVALID_REQUEST, 'invalid request: want "jsonrpc":"2.0" and a method')
        cls = POINTS.get(method)
        if cls is None:
            return _error(id_, METHOD_NOT_FOUND, "method not found: %r is not a lifecycle point" % method)
        params = request.get("params")
        if params is not None and not isinstance(params, dict):
            return _error(id_, INVALID_PARAMS, "params of %s: expected an object" % method)
        try:
            ctx = cls.from_params(params)
        except TypeError as e:
            return _error(id_, INVALID_PARAMS, "params of %s: %s" % (method, e))
        if not hooks.handles(method):
            return {"jsonrpc": "2.0", "id": id_, "result": None}
        before = cls.from_params(params)
        answer = hooks._method(method)(ctx)
        return {"jsonrpc": "2.0", "id": id_, "result": _decisions(before, answer)}
    except Exception as e:  # a hook never raises into its caller
        if not isinstance(e, HookError):
            traceback.print_exc(file=sys.stderr)
        rid = request.get("id") if isinstance(request, dict) else None
        return _error(rid, HOOK_FAILED, "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__)


def handle_request(hooks: LifecycleHooks, request: Union[bytes, str, dict]) -> bytes:
    """Answer one JSON-RPC 2.0 request with one response, both JSON.

    ``request`` is the body (bytes or str) or an already decoded dict; the answer
    is the response as UTF-8 JSON bytes, ready for any framework's response
    object. Never raises.
    """
    if isinstance(request, (bytes, bytearray, str)):
        try:
            request = json.loads(request)
        except ValueError as e:
            return _encode(_error(None, PARSE_ERROR, "parse error: %s" % e))
    return _encode(handle(hooks, request))


def _encode(resp: Dict[str, Any]) -> bytes:
    try:
        return json.dumps(resp, separators=(",", ":")).encode()
    except (TypeError, ValueError) as e:
        return json.dumps(_error(None, HOOK_FAILED, "answer is not JSON: %s" % e)).encode()
