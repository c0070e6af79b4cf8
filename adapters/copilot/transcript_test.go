package copilot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// testdata/transcript/events.jsonl is the head of a real Copilot CLI 1.0.102
// session transcript (a probe whose agentStop hook always refused).
func transcriptLines(t *testing.T) (lines []string, stops []int) {
	t.Helper()
	full, err := os.ReadFile(filepath.Join("testdata", "transcript", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.SplitAfter(string(full), "\n")
	for i, l := range lines {
		if gjson.Get(l, "type").Str == "hook.start" && gjson.Get(l, "data.hookType").Str == EventAgentStop {
			stops = append(stops, i)
		}
	}
	return lines, stops
}

// agentStopAt decodes the agentStop whose hook.start is lines[i], with the
// transcript holding the lines up to upto.
func agentStopAt(t *testing.T, a Adapter, path string, lines []string, i int) string {
	t.Helper()
	in := gjson.Get(lines[i], "data.input").Raw
	in = strings.Replace(in, gjson.Get(in, "transcriptPath").Raw, `"`+path+`"`, 1)
	ev, err := a.Decode(EventAgentStop, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	return ev.LastAssistantMessage
}

func TestLastAssistantMessageFromTheTranscript(t *testing.T) {
	lines, stops := transcriptLines(t)
	want := []string{"All done, nothing else to do.", "Checks pass. Finished."}
	if len(stops) != len(want) {
		t.Fatalf("%d agentStop hooks in the record, want %d", len(stops), len(want))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	a := Adapter{TranscriptWait: 2 * time.Second}
	for i, s := range stops {
		// The transcript as it stands once the hook's own start is written.
		if err := os.WriteFile(path, []byte(strings.Join(lines[:s+1], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := agentStopAt(t, a, path, lines, s); got != want[i] {
			t.Errorf("agentStop %d: last message %q, want %q", i+1, got, want[i])
		}
	}
	// The whole file, later lines and all: still the message before this hook.
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := agentStopAt(t, a, path, lines, stops[0]); got != want[0] {
		t.Errorf("first agentStop in the full transcript: %q", got)
	}
}

// Copilot writes its transcript behind the hooks (the e2e run caught the
// hook reading the message before the last one): the hook waits until its own
// hook.start line is in the file, and never answers with an older message.
func TestTheTranscriptIsAwaited(t *testing.T) {
	lines, stops := transcriptLines(t)
	path := filepath.Join(t.TempDir(), "events.jsonl")
	s := stops[1]
	// Not yet written: the final message and the hook's start.
	if err := os.WriteFile(path, []byte(strings.Join(lines[:s-2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := agentStopAt(t, Adapter{TranscriptWait: 100 * time.Millisecond}, path, lines, s); got != "" {
		t.Errorf("before the transcript caught up: %q, want no message", got)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(150 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if _, err := f.WriteString(strings.Join(lines[s-2:s+1], "")); err != nil {
			t.Error(err)
		}
	}()
	got := agentStopAt(t, Adapter{TranscriptWait: 5 * time.Second}, path, lines, s)
	<-done
	if got != "Checks pass. Finished." {
		t.Errorf("after waiting: %q", got)
	}
	for _, p := range []string{"", filepath.Join(t.TempDir(), "missing.jsonl"), t.TempDir()} {
		if got, _, retry := scanTranscript(p, 1); got != "" || retry {
			t.Errorf("%q: %q retry %v", p, got, retry)
		}
	}
}
