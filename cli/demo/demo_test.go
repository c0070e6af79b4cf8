package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemoEndsDone(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), &out, true)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(res.Dir)
	t.Log("\n" + out.String())
	if res.State != "done" || res.Outcome != "completed" {
		t.Fatalf("demo ended in %q (%q)", res.State, res.Outcome)
	}
	text := out.String()
	// The story the recording tells, in order.
	want := []string{
		"SessionStart", "UserPromptSubmit", "state planning",
		"Stop", "block", "PLAN.md", "state executing",
		"git push --force", "block",
		"make test FAIL=1", "exit 2",
		"make test", "exit 0", "state verifying",
		"ALL STEPS PASS", "state done",
		"final state: done (outcome: completed)",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			t.Fatalf("demo output lacks %q after offset %d:\n%s", w, at, text)
		}
		at += i + len(w)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, ".hook-loop", "events.jsonl")); err != nil {
		t.Errorf("kept project has no log: %v", err)
	}
	if strings.Contains(text, RecordedRoot) {
		t.Errorf("output names the recorded root instead of the demo project")
	}
}

func TestDemoRemovesItsProject(t *testing.T) {
	res, err := Run(context.Background(), &bytes.Buffer{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(res.Dir); !os.IsNotExist(err) {
		t.Errorf("temp project %s left behind (%v)", res.Dir, err)
	}
}

// TestHintWorksFromWhereTheDemoEnds: after `go run . demo` hook-loop is not on
// PATH, so the hint installs it first; the kept project is named with a cd.
func TestHintWorksFromWhereTheDemoEnds(t *testing.T) {
	h := Hint("", false)
	if !strings.Contains(h, "go install . ./cmd/hook-loop-hook") || !strings.Contains(h, "hook-loop install codex --profile plan_execute --write --trust") {
		t.Errorf("hint without hook-loop on PATH:\n%s", h)
	}
	if h := Hint("", true); strings.Contains(h, "go install") {
		t.Errorf("hint with hook-loop on PATH still installs it:\n%s", h)
	}
	if h := Hint("/tmp/p", true); !strings.Contains(h, "cd /tmp/p && hook-loop status") {
		t.Errorf("hint for a kept project:\n%s", h)
	}
}
