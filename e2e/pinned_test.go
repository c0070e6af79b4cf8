package e2e

// A session keeps the loop it started with (issue 13): mid-session the TEST
// deletes the loop file (not the agent), and the next stop is still refused
// with the reason built from the pinned loop. One scripted turn per harness:
// a stop right after the file went, refused; then, past max_stop_blocks 1, the
// harness is let go (capped), so each run stays short.

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/chat"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/messages"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/responses"
)

// capAtOne makes the loop let the agent go after one refused stop.
func capAtOne(b []byte) []byte {
	return bytes.Replace(b, []byte(`"loop": {`), []byte(`"loop": {"max_stop_blocks": 1,`), 1)
}

// pinnedReason is what a refusal built from plan_execute in planning says.
var pinnedReason = []string{`"planning"`, "PLAN.md"}

func checkPinnedLog(t *testing.T, evs []eventlog.Event, reasons ...string) {
	t.Helper()
	if len(reasons) == 0 {
		reasons = pinnedReason
	}
	var refused, missing int
	for _, e := range evs {
		switch e.EventType {
		case eventlog.TypeStopRefused:
			refused++
			msg, _ := e.Payload["message"].(string)
			for _, want := range reasons {
				if !strings.Contains(msg, want) {
					t.Errorf("the refusal lacks %q (the pinned loop's reason): %s", want, msg)
				}
			}
		case session.TypeLoopFileMissing:
			missing++
		}
	}
	if refused != 1 || missing != 1 {
		t.Errorf("refused stops %d, loop_file_missing %d; want 1 and 1", refused, missing)
	}
}

func TestClaudeDeletedLoopFileKeepsThePinnedLoop(t *testing.T) {
	t.Parallel()
	p := newClaudeProject(t, capAtOne)
	loopFile := filepath.Join(p.dir, "hook-loop.json")
	r := p.run(t, messages.Script{Next: func(_ *messages.Request, n int) messages.Step {
		if n == 0 {
			if err := os.Remove(loopFile); err != nil {
				t.Errorf("delete the loop file: %v", err)
			}
			return messages.Text("I am done.")
		}
		return messages.Text("Still done.")
	}}, "Add a greeting feature")
	main := r.mock.MainRequests()
	if len(main) != 2 {
		t.Fatalf("model got %d main requests, want 2 (stop refused, stop capped)", len(main))
	}
	fb := feedback(main[1])
	if len(fb) != 1 {
		t.Fatalf("request 2 carries %d Stop-hook feedback messages, want 1", len(fb))
	}
	for _, want := range pinnedReason {
		if !strings.Contains(fb[0], want) {
			t.Errorf("the refusal the model read lacks %q:\n%s", want, fb[0])
		}
	}
	checkPinnedLog(t, p.events(t))
}

func TestCodexDeletedLoopFileKeepsThePinnedLoop(t *testing.T) {
	t.Parallel()
	var loopFile string
	p := newCodexProject(t, responses.Options{Respond: func(n int, _ responses.Request) responses.Step {
		if n == 0 {
			if err := os.Remove(loopFile); err != nil {
				t.Errorf("delete the loop file: %v", err)
			}
			return responses.Step{Message: "I am done."}
		}
		return responses.Step{Message: "Still done."}
	}}, capAtOne)
	loopFile = filepath.Join(p.dir, "hook-loop.json")
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	var prompt string
	for _, m := range r.received(1) {
		if m.Role == "user" && strings.Contains(m.Text, "<hook_prompt") {
			prompt = m.Text
		}
	}
	for _, want := range pinnedReason {
		if !strings.Contains(prompt, want) {
			t.Errorf("the refusal the model read lacks %q:\n%s", want, prompt)
		}
	}
	checkPinnedLog(t, p.events(t))
}

// logEvents reads an event log's lines.
func logFileEvents(t *testing.T, path string) []eventlog.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []eventlog.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if e, err := logline.Parse(sc.Bytes()); err == nil {
			out = append(out, e)
		}
	}
	return out
}

// deleteThen is a chat step that deletes the loop file, then answers text.
func deleteThen(t *testing.T, path, text string) chat.Step {
	return func(*chat.Request) chat.Reply {
		if err := os.Remove(path); err != nil {
			t.Errorf("delete the loop file: %v", err)
		}
		return chat.Reply{Text: text}
	}
}

// buildingReason is what a refusal of the opencode and pi e2e loops says.
var buildingReason = []string{`"building"`, "until"}

func TestOpencodeDeletedLoopFileKeepsThePinnedLoop(t *testing.T) {
	var loopFile string
	p := newOCProject(t, []chat.Step{
		func(r *chat.Request) chat.Reply { return deleteThen(t, loopFile, "I think I am finished.")(r) },
		chat.Text("Still finished."),
	})
	loopFile = filepath.Join(p.dir, "hook-loop.json")
	if err := os.WriteFile(loopFile, []byte(strings.Replace(ocLoop, `"max_stop_blocks": 3`, `"max_stop_blocks": 1`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p.run("build the feature")
	reqs := p.mock.AgentRequests()
	if len(reqs) < 2 {
		p.dump()
		t.Fatalf("opencode made %d model requests; want the refused stop's follow-up", len(reqs))
	}
	if last := reqs[1].LastMessage(); last.Role != "user" || !strings.Contains(last.Content, `"building"`) {
		p.dump()
		t.Fatalf("after the refused stop the model received %s: %q; want the pinned loop's reason", last.Role, last.Content)
	}
	checkPinnedLog(t, logFileEvents(t, p.logPath), buildingReason...)
}

func TestPiDeletedLoopFileKeepsThePinnedLoop(t *testing.T) {
	var loopFile string
	p := newPiProject(t, []chat.Step{
		func(r *chat.Request) chat.Reply { return deleteThen(t, loopFile, "I think I am finished.")(r) },
		chat.Text("Still finished."),
	})
	loopFile = filepath.Join(p.dir, "hook-loop.json")
	if err := os.WriteFile(loopFile, []byte(strings.Replace(piLoop, `"max_stop_blocks": 3`, `"max_stop_blocks": 1`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, _ := p.print("build the feature")
	reqs := p.mock.AgentRequests()
	if len(reqs) < 2 || !containsAny(userTexts(reqs[1]), `"building"`) {
		p.dump(stderr)
		t.Fatalf("after the refused stop the model did not receive the pinned loop's reason (%d requests)", len(reqs))
	}
	checkPinnedLog(t, logFileEvents(t, p.logPath), buildingReason...)
}
