package e2e

// The person in the loop, on every harness: the loop is installed with
// --mode warn, so a risky command the loop would refuse runs and the model is
// told what would have been refused; then the agent stops in approval_gate's
// pending_approval, a person runs `hook-loop approve` in a terminal, and the
// agent's next turn finishes the loop.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
)

// warnText starts what a warn-mode loop tells the model (engine.warnText).
const warnText = "this would have been refused"

// personScenario's between step keeps the harness's environment in
// *harnessEnv, where the hooks found their log key.
func personScenario(harnessEnv *[]string) traceScenario {
	return traceScenario{
		install: []string{"--mode", "warn"},
		turns: []tTurn{
			{"Draft a proposal for the greeting feature", []tAct{
				tBash("mkdir -p build && touch build/old.o"),
				tBash("rm -r build"),
				tWrite("PROPOSAL.md", "# Proposal\nAdd greet.txt.\n"),
				tSay("The draft is in PROPOSAL.md. APPROVAL REQUESTED"),
			}},
			// Not "approved": the person decides from the terminal, not the chat.
			{"continue", []tAct{
				tBash("git add PROPOSAL.md && git commit -q -m 'proposal approved'"),
				tSay("Committed the approved proposal."),
			}},
		},
		between: func(t *testing.T, dir string, env []string) {
			*harnessEnv = env
			out := runHookLoop(t, dir, env, "approve", "--reason", "looks good")
			t.Logf("hook-loop approve:\n%s", out)
			if !strings.Contains(out, "pending_approval → approved") {
				t.Fatalf("approve did not move the waiting session: %s", out)
			}
		},
	}
}

func TestPersonWarnModeAndTerminalApprove(t *testing.T) {
	for _, h := range traceHarnesses {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			var env []string
			sc := personScenario(&env)
			// The scenario's between step needs the stepper's record of what
			// the model received; each harness's recorder makes its own.
			var seen func(string) bool
			var st *stepper
			sc.seen = func(s *stepper) { seen, st = s.received, s }
			_, dir, _ := h.run(t, "approval_gate", sc)

			// (a) warn: the risky command ran, the model was told, the log says so.
			if _, err := os.Stat(filepath.Join(dir, "build")); !os.IsNotExist(err) {
				t.Errorf("build/ still exists (%v): the risky command did not run under warn", err)
			}
			if !seen(warnText) {
				t.Errorf("no model request carried %q", warnText)
				dumpSeen(t, st, "rm -r build")
			}
			evs := logEvents(t, dir)
			var wb []eventlog.Event
			for _, e := range evs {
				if e.EventType == eventlog.TypeWouldBlock && e.Payload["kind"] == "tool" {
					wb = append(wb, e)
				}
				if e.EventType == "tool_blocked" {
					t.Errorf("a tool call was refused under warn: %v", e.Payload)
				}
			}
			if len(wb) == 0 || !strings.Contains(eventlogString(wb[0].Payload["command"]), "rm -r build") {
				t.Errorf("would_block records: %v", wb)
			}

			// (b) the person's approve moved the waiting session on, and the
			// agent then finished.
			var path []string
			approvedBy := ""
			for _, e := range evs {
				if e.EventType == eventlog.TypeStateTransitioned {
					path = append(path, eventlogString(e.Payload["to"]))
					if e.Payload["to"] == "approved" {
						approvedBy = e.Actor
					}
				}
			}
			if strings.Join(path, " ") != "drafting pending_approval approved done" {
				t.Errorf("states: %v, want drafting pending_approval approved done", path)
			}
			if approvedBy != "person" {
				t.Errorf("approved by %q, want person", approvedBy)
			}
			last := ""
			for _, e := range evs {
				if e.EventType == eventlog.TypeLoopOutcome {
					last = eventlogString(e.Payload["outcome"])
				}
			}
			if last != "completed" {
				t.Errorf("outcome %q, want completed", last)
			}
			status := runHookLoop(t, dir, env, "status")
			t.Logf("hook-loop status:\n%s", status)
			if !strings.Contains(status, "would block:") {
				t.Errorf("status does not show the would-blocks")
			}
		})
	}
}

func eventlogString(v any) string {
	s, _ := v.(string)
	return s
}

func dumpSeen(t *testing.T, s *stepper, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, b := range s.seen {
		if j := strings.Index(b, text); j >= 0 {
			lo := max(0, j-600)
			t.Logf("request %d: …%s…", i, b[lo:min(len(b), j+400)])
			return
		}
	}
}
