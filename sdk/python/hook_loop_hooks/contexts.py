"""The lifecycle points and their typed contexts.

A context is facts (read-only: hook-loop ignores a changed fact) plus decision
fields, which hook-loop reads back and applies. The field lists mirror
``hook-loop hooks points`` (the Go package ``sdk/hooks``) exactly; a test keeps
them in step.
"""

from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional

__all__ = [
    "Context", "LoopStart", "SessionStart", "SessionSpawned", "InputReceived", "ToolRequested",
    "PhaseChanged", "WaitingForInput", "LoopComplete", "POINTS", "context_class",
]


@dataclass
class Context:
    """Facts every point carries, and the helpers every context has.

    ``with_`` is the declaration entry's ``with`` object (``with`` on the
    wire; ``with`` is a Python keyword).
    """

    loop_id: str = ""            # the loop's id (the DSL's loop.id)
    session_id: str = ""         # the harness session id
    harness: str = ""            # codex | claude | opencode | pi
    cwd: str = ""                # the directory the harness reports
    state: str = ""              # the loop's current state
    actor: str = ""              # who brought this moment about: agent | person | simulate
    with_: Dict[str, Any] = field(default_factory=dict)  # the entry's `with` object

    point = ""                   # the point name; set on each subclass
    decisions = ()               # the decision field names; set on each subclass
    decision_types = {}          # a decision's type where DECISION_TYPES has another

    @classmethod
    def from_params(cls, params: Optional[Dict[str, Any]]) -> "Context":
        """Build the context from JSON-RPC params; unknown keys are ignored so an
        older SDK keeps working with a newer hook-loop."""
        params = dict(params or {})
        if "with" in params:
            params["with_"] = params.pop("with")
        names = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in params.items() if k in names and v is not None}
        return cls(**kwargs)

    def to_params(self) -> Dict[str, Any]:
        """The context as JSON-RPC params (``with_`` becomes ``with``)."""
        out = {}
        for f in fields(self):
            name = "with" if f.name == "with_" else f.name
            out[name] = getattr(self, f.name)
        if not out.get("with"):
            out.pop("with", None)
        return out

    def decision_values(self) -> Dict[str, Any]:
        """The current values of this context's decision fields."""
        return {name: getattr(self, name) for name in self.decisions}


@dataclass
class LoopStart(Context):
    """loop_start: once, when hook-loop first sees a session of this loop."""

    command: str = ""            # what armed the session: the first harness event, or a person's control
    proceed: bool = True         # decision — False: the session is held (tool calls and stop refused)
    reason: str = ""             # decision — why, recorded with a refusal

    point = "loop_start"
    decisions = ("proceed", "reason")


@dataclass
class SessionStart(Context):
    """session_start: every harness SessionStart, with the text hook-loop will inject."""

    source: str = ""             # what started the session: startup | resume | clear | compact ...
    model: str = ""              # the model the harness reports; "" when none
    respawn: bool = False        # True when the harness resumes a session it had
    context: str = ""            # decision — the text hook-loop will inject (prefilled; replaced)
    proceed: bool = True         # decision — False: the session start is refused (ends the session where the harness can)
    reason: str = ""             # decision — the refusal's message to the harness

    point = "session_start"
    decisions = ("context", "proceed", "reason")


@dataclass
class SessionSpawned(Context):
    """session_spawned: after a session's first event is recorded."""

    harness_session_id: str = ""  # the harness's own session id ("" when it gave none)
    event: str = ""              # the harness event that showed the session first
    source: str = ""             # for a SessionStart: startup | resume | clear | compact ...
    model: str = ""              # the model the harness reports; "" when none
    respawn: bool = False        # True when the harness resumes a session it had
    announce: str = ""           # decision — text the agent is given with hook-loop's answer ("" : nothing)

    point = "session_spawned"
    decisions = ("announce",)
    decision_types = {"announce": str}


@dataclass
class InputReceived(Context):
    """input_received: a person's prompt, before it is matched against the loop's
    rules, or a person's control (approve, advance, ...) before it acts."""

    kind: str = ""               # prompt (typed into the harness) | command (a control)
    source: str = ""             # harness | person (hook-loop's controls: the CLI or the board)
    command: str = ""            # the control, for a command; "" otherwise
    event: str = ""              # the harness event for a prompt; advance's loop event for a command
    endpoint: str = ""           # the session the input lands in, for a prompt; "" for a command
    prompt: str = ""             # the person's prompt; for a command, the reason given (a fact)
    context: str = ""            # decision — text added to the prompt (empty: nothing added)
    proceed: bool = True         # decision — False: the prompt is refused
    reason: str = ""             # decision — the refusal's message to the harness

    point = "input_received"
    decisions = ("context", "proceed", "reason")


@dataclass
class ToolRequested(Context):
    """tool_requested: before a tool runs, after hook-loop's own policy allowed it."""

    tool_name: str = ""          # canonical tool name: Bash, Write, Edit, apply_patch, ...
    tool_input: Any = None       # the tool's arguments as the harness sent them
    command: str = ""            # the shell command of a Bash call; "" otherwise
    paths: List[str] = field(default_factory=list)  # the files the call writes, absolute
    proceed: bool = True         # decision — False: the tool call is refused
    reason: str = ""             # decision — the refusal's message to the harness

    point = "tool_requested"
    decisions = ("proceed", "reason")


@dataclass
class PhaseChanged(Context):
    """phase_changed: a transition was applied."""

    from_: str = ""              # the state before the transition (`from` on the wire)
    to: str = ""                 # the state after it
    event: str = ""              # the loop event that caused it
    from_phase: str = ""         # the state before (the design's phase is hook-loop's state)
    to_phase: str = ""           # the state after
    outcome: str = ""            # the loop event that routed the transition (as event)
    terminal: bool = False       # True when `to` is a terminal state
    notify: bool = True          # decision — False: the phase change is not announced
    message: str = ""            # decision — the announcement's text ("" : hook-loop's own)

    point = "phase_changed"
    decisions = ("notify", "message")

    @classmethod
    def from_params(cls, params):
        params = dict(params or {})
        if "from" in params:
            params["from_"] = params.pop("from")
        return super().from_params(params)

    def to_params(self):
        out = super().to_params()
        out["from"] = out.pop("from_")
        return out


@dataclass
class WaitingForInput(Context):
    """waiting_for_input: the loop reached a state listed in loop.waits_for_human."""

    kind: str = ""               # gate: a state that waits for a person
    node: str = ""               # the state that waits
    question: str = ""           # decision — what the person is asked
    summary: str = ""            # decision — a one-line summary of where the loop stands

    point = "waiting_for_input"
    decisions = ("question", "summary")


@dataclass
class LoopComplete(Context):
    """loop_complete: a terminal state is reached."""

    final_state: str = ""        # the terminal state reached
    outcome: str = ""            # completed (a terminal state) | stopped (its stop state) | cancelled (a person's cancel) | forced (the harness ended it over refused stops)
    source: str = ""             # harness (a hook event ended it) | person (a control ended it)
    announce: bool = True        # decision — False: completion is not announced

    point = "loop_complete"
    decisions = ("announce",)


#: The points, in the order a loop meets them, mapped to their context class.
POINTS = {c.point: c for c in (LoopStart, SessionStart, SessionSpawned, InputReceived, ToolRequested,
                               PhaseChanged, WaitingForInput, LoopComplete)}

#: The Python type each decision must have on the wire.
DECISION_TYPES = {"proceed": bool, "notify": bool, "announce": bool}


#: The lifecycle design's point names, each an alias of hook-loop's: a method
#: named after one (``work_item_start``) handles that point.
DESIGN_ALIASES = {"work_item_start": "loop_start", "session_spawn": "session_start",
                  "work_item_complete": "loop_complete"}


def context_class(point: str):
    """The context class of ``point``, or None for an unknown point."""
    return POINTS.get(point)
