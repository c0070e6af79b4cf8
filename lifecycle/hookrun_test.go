package lifecycle_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/lifecycle"
)

// The same loop as the prototype's smallest: a Stop is refused until `make` passed.
const gatedLoop = `{"loop": {"id": "gated", "initial_state": "working", "states": ["working", "done"],
 "events": ["built"], "transitions": [{"from": "working", "event": "built", "to": "done"}],
 "terminal_states": ["done"]},
 "codex": {"event_map": [{"codex_event": "PostToolUse", "when": {"command_match": "make"}, "emit": "built"}]}}`

// Payload shapes as captured from the real Codex binary (shared/harness/codex/payloads).
const (
	sessionStartPayload = `{"session_id":"%s","transcript_path":"/tmp/rollout.jsonl","cwd":"%s","hook_event_name":"SessionStart","model":"mock-model","permission_mode":"bypassPermissions","source":"startup"}`
	stopPayload         = `{"session_id":"%s","turn_id":"t1","transcript_path":"/tmp/rollout.jsonl","cwd":"%s","hook_event_name":"Stop","model":"mock-model","permission_mode":"bypassPermissions","stop_hook_active":false,"last_assistant_message":"done"}`
)

type logLine struct {
	SessionID string         `json:"session_id"`
	EventType string         `json:"event_type"`
	Actor     string         `json:"actor"`
	Payload   map[string]any `json:"payload"`
}

func readLog(t *testing.T, path string) []logLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func eventTypes(lines []logLine) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.EventType)
	}
	return out
}

func codexHook(t *testing.T, root, hooksConfig, payload string) harness.Output {
	t.Helper()
	return hook.New(hook.Deps{Lifecycle: lifecycle.ForHook}).Run(context.Background(), hook.Request{
		Adapter: codex.New(),
		Flags:   hook.Flags{ConfigPath: filepath.Join(root, "hook-loop.json"), HooksConfig: hooksConfig},
		Stdin:   strings.NewReader(payload),
		Cwd:     root,
	})
}

// A required roster hook refusing loop_start never frees the session: the loop
// records why (lifecycle_held), and the session's Stop and tool calls are
// refused with the roster's reason.
func TestRequiredRosterRefusingLoopStartThroughCodexHook(t *testing.T) {
	roster := example(t, "roster")
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(gatedLoop), 0o644)
	cfgDir := t.TempDir() // the user's config, outside the project
	cfg := filepath.Join(cfgDir, "config.json")
	os.WriteFile(cfg, []byte(`{"hooks":[{"name":"roster","command":["`+roster+`"],"on":["loop_start"],"required":true,"with":{"sessions":["alice-session"]}}]}`), 0o644)

	out := codexHook(t, root, cfg, fmt.Sprintf(sessionStartPayload, "mallory-session", root))
	if out.Exit != 0 {
		t.Fatalf("SessionStart exit %d: %s %s", out.Exit, out.Stdout, out.Stderr)
	}
	if !strings.Contains(string(out.Stdout)+string(out.Stderr), "session mallory-session is not on the roster") {
		t.Errorf("SessionStart answer does not say why the session is held: stdout %s stderr %s", out.Stdout, out.Stderr)
	}
	out = codexHook(t, root, cfg, fmt.Sprintf(stopPayload, "mallory-session", root))
	if !strings.Contains(string(out.Stdout), `"decision":"block"`) || !strings.Contains(string(out.Stdout), "not on the roster") {
		t.Errorf("Stop of a held session: exit %d stdout %s", out.Exit, out.Stdout)
	}

	lines := readLog(t, filepath.Join(root, ".hook-loop", "events.jsonl"))
	got := strings.Join(eventTypes(lines), " ")
	for _, want := range []string{"hooks.decided", "hooks.refused", "loop_started", "lifecycle_held", "stop_contract_failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s: %s", want, got)
		}
	}
	for _, l := range lines {
		switch l.EventType {
		case "hooks.refused":
			if l.Payload["hook"] != "roster" || l.Payload["point"] != "loop_start" || l.Payload["reason"] != "session mallory-session is not on the roster" {
				t.Errorf("hooks.refused = %v", l.Payload)
			}
		case "lifecycle_held":
			if l.Payload["reason"] != "loop_start refused: session mallory-session is not on the roster" {
				t.Errorf("lifecycle_held = %v", l.Payload)
			}
		case "loop_disarmed":
			t.Errorf("a refused loop_start disarmed the session: %v", l)
		}
	}

	// A session on the roster is gated as usual: its early Stop is refused.
	codexHook(t, root, cfg, fmt.Sprintf(sessionStartPayload, "alice-session", root))
	out = codexHook(t, root, cfg, fmt.Sprintf(stopPayload, "alice-session", root))
	if !strings.Contains(string(out.Stdout), `"decision":"block"`) {
		t.Errorf("Stop of a gated session was not refused: exit %d stdout %s", out.Exit, out.Stdout)
	}
}

// A declaration that cannot be loaded is logged and the hook runs hookless.
func TestBadDeclarationRunsHooklessThroughCodexHook(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(gatedLoop), 0o644)
	cfg := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(cfg, []byte(`{"hooks":[{"name":"roster","command":"roster","timeoutSeconds":-1}]}`), 0o644)

	out := codexHook(t, root, cfg, fmt.Sprintf(sessionStartPayload, "s1", root))
	if out.Exit != 0 {
		t.Fatalf("exit %d: %s", out.Exit, out.Stderr)
	}
	lines := readLog(t, filepath.Join(root, ".hook-loop", "events.jsonl"))
	var failed []logLine
	for _, l := range lines {
		if l.EventType == "hooks.load_failed" {
			failed = append(failed, l)
		}
		if l.EventType == "loop_disarmed" {
			t.Errorf("a bad declaration disarmed the loop: %v", l)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0].Payload["why"].(string), `hooks[0] ("roster").timeoutSeconds: expected a positive number`) {
		t.Errorf("hooks.load_failed records = %v", failed)
	}
}

// `hooks points` says what a loop_start refusal does as the engine does it: the
// session is held until a reload (TestRequiredRosterRefusingLoopStartThroughCodexHook),
// never disarmed.
func TestPointsTextSaysALoopStartRefusalHolds(t *testing.T) {
	var b strings.Builder
	if err := lifecycle.WritePoints(&b, false); err != nil {
		t.Fatal(err)
	}
	section := b.String()
	section = section[strings.Index(section, "loop_start:"):strings.Index(section, "session_start:")]
	for _, want := range []string{"holds the session", "reload --session", "lifecycle_held"} {
		if !strings.Contains(section, want) {
			t.Errorf("loop_start text lacks %q:\n%s", want, section)
		}
	}
	if strings.Contains(section, "disarms the loop") || strings.Contains(section, "no stop refusals") {
		t.Errorf("loop_start text says a refusal disarms:\n%s", section)
	}
}
