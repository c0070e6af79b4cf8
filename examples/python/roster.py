"""roster: refuse to arm the loop for a session not on the list.

Declared as a `path` entry (hook-loop runs it with python3 and the SDK on its
path):

    - name: roster
      path: roster.py
      on: [loop_start]
      required: true
      with: {sessions: [a-session-id]}
"""

from hook_loop_hooks import LifecycleHooks, LoopStart, serve_stdio


class Roster(LifecycleHooks):
    def loop_start(self, ctx: LoopStart):
        allowed = ctx.with_.get("sessions", [])
        if ctx.session_id not in allowed:
            ctx.proceed = False
            ctx.reason = f"session {ctx.session_id} is not on the roster"
            return ctx
        return None


if __name__ == "__main__":
    serve_stdio(Roster())
