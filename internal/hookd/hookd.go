// Package hookd is the hook server: one long-lived hook-loop process per user
// and environment that runs the <harness>-hook commands Codex and Claude Code
// fire, so that a hook costs little more than starting the small client that
// asks it (cmd/hook-loop-hook), not a process that links and initialises all
// of hook-loop and reads the loop and the log afresh. It keeps what the
// plugin co-process keeps (internal/serve): parsed loops by content hash and
// the log's fold while no other process touched the log.
//
// Each request runs hookcmd.Run exactly as `hook-loop <harness>-hook` would
// run it in the client's place — same arguments, working directory and
// stdin, under the same log lock — and only for a client whose environment
// is the server's own, variable for variable (the request carries its
// SHA-256, wire.EnvDigest): a hook's decisions read the environment
// (HOOK_LOOP_*, the XDG folders, the variables the guard expands in the
// agent's commands), so one server serves one environment and the client
// names the socket after it. The answer goes out as soon as the hook's
// events are in the log; the log's index (a cache) is written after it,
// still under the log's lock (eventlog.WithIndexLater).
//
// Trust runs both ways. The server serves only processes of its user
// confined exactly as itself: a sandboxed agent that reached the socket must
// not get hook runs (and so log writes) its sandbox keeps from it, and a
// server started inside the sandbox runs nothing for the hooks outside it,
// which send their event before they have checked the server. The client
// reads an answer only from a server that is the hook-loop binary beside it,
// confined exactly as itself and traced by no one (cmd/hook-loop-hook).
package hookd

import "time"

// Arg is the hidden first argument that makes hook-loop a hook server:
// hook-loop __hookd SOCKET.
const Arg = "__hookd"

// IdleEnv sets how long a server stays up without a request (a Go duration;
// default DefaultIdle).
const (
	IdleEnv     = "HOOK_LOOP_HOOKD_IDLE"
	DefaultIdle = 10 * time.Minute
)
