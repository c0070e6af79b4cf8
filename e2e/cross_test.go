package e2e

// The cross-harness proof: one loop file — the embedded gallery plan_execute,
// installed with `<harness> install --profile plan_execute` — drives the real
// Codex, Claude Code, opencode and pi to done. In each, the agent first tries to
// stop in planning and is refused with the loop's own reason; then it writes
// PLAN.md with the harness's file tool, runs `make test` in the scratch repo
// and says ALL STEPS PASS. A harness that is not installed is skipped, saying so.

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/session"
)

const crossLoop = "plan_execute"

func TestCrossHarnessOneLoopToDone(t *testing.T) {
	want, err := gallery.Get(crossLoop)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range traceHarnesses {
		t.Run(h.name, func(t *testing.T) {
			_, dir, _ := h.run(t, crossLoop, scenarioFor(crossLoop, "early-stop"))
			// The same file in every harness: install wrote the gallery loop as is.
			got, err := os.ReadFile(filepath.Join(dir, "hook-loop.json"))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s's hook-loop.json is not the gallery %s (%v)", h.name, crossLoop, err)
			}
			logPath := projectLog(dir)
			data, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			sessions := map[string]bool{}
			refused := 0
			var transitions []string
			for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
				e, err := logline.Parse(line)
				if err != nil {
					t.Fatalf("log line does not parse: %v", err)
				}
				sessions[e.SessionID] = true
				switch e.EventType {
				case eventlog.TypeStopRefused:
					if e.State == "planning" {
						refused++
					}
				case eventlog.TypeStateTransitioned:
					transitions = append(transitions, e.Payload["from"].(string)+" -"+e.Payload["event"].(string)+"-> "+e.Payload["to"].(string))
				}
			}
			cxEqual(t, h.name+" transitions", transitions, []string{
				"backlog -kickoff-> planning", "planning -plan_ready-> executing",
				"executing -step_done-> verifying", "verifying -all_steps_pass-> done"})
			if refused != 1 {
				t.Errorf("%s: %d stops refused in planning, want 1", h.name, refused)
			}
			done := false
			err = session.Open(logPath).View(func(tx session.Tx) error {
				for sid := range sessions {
					s := tx.Session(sid)
					done = done || (s.State == "done" && s.Outcome == "completed")
				}
				return nil
			})
			if err != nil || !done {
				t.Errorf("%s: no session reached done with outcome completed (%v)", h.name, err)
			}
		})
	}
}
