package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var schemaFile = map[string]string{
	"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit",
	"PreToolUse": "pre-tool-use", "PermissionRequest": "permission-request",
	"PostToolUse": "post-tool-use", "Stop": "stop", "SubagentStart": "subagent-start",
	"SubagentStop": "subagent-stop", "PreCompact": "pre-compact", "PostCompact": "post-compact",
	"Interrupt": "interrupt",
}

func decisions() map[string]loop.Decision {
	return map[string]loop.Decision{
		"allow":              {Action: loop.Allow},
		"allow+context":      {Action: loop.Allow, Context: "loop contract"},
		"block":              {Action: loop.Block, Reason: "not yet: run go test"},
		"block-no-reason":    {Action: loop.Block},
		"steer":              {Action: loop.Steer, Context: "state is planning"},
		"system":             {Action: loop.Allow, SystemMessage: "hook-loop: phase changed"},
		"block+system":       {Action: loop.Block, Reason: "r", SystemMessage: "s"},
		"steer+system":       {Action: loop.Steer, Context: "c", SystemMessage: "s"},
		"capped":             {Action: loop.Allow, Outcome: "capped", SystemMessage: "capped after 3"},
		"steer-empty":        {Action: loop.Steer},
		"block+context+json": {Action: loop.Block, Reason: "quote \" and\nnewline", Context: "ignored"},
	}
}

// TestEveryOutputMatchesCodexSchema encodes every event × decision and
// validates the output against Codex's own output schema, with
// additionalProperties enforced as the schema says: an unknown field makes
// Codex reject the output and fail open.
func TestEveryOutputMatchesCodexSchema(t *testing.T) {
	dir := filepath.Join(sharedCodex(t), "schemas")
	c := jsonschema.NewCompiler()
	schemas := map[string]*jsonschema.Schema{}
	for ev, base := range schemaFile {
		p := filepath.Join(dir, base+".command.output.schema.json")
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := c.AddResource(p, doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		schemas[ev] = s
	}
	// The validator must really reject unknown fields, or this test proves nothing.
	probe, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"decision":"allow","messages":[]}`))
	if schemas["Stop"].Validate(probe) == nil {
		t.Fatal("the prototype's allow output validated against stop schema: validator not enforcing")
	}
	a := New()
	n := 0
	for _, native := range NativeEvents {
		for name, d := range decisions() {
			out := a.Encode(loop.HookEvent{Name: native, NativeName: native}, d)
			label := fmt.Sprintf("%s/%s", native, name)
			if out.Exit != 0 {
				t.Errorf("%s: exit %d (only 0 is safe: exit 2 with an empty stderr fails open)", label, out.Exit)
			}
			if len(bytes.TrimSpace(out.Stdout)) == 0 {
				continue
			}
			n++
			if native == "SessionEnd" {
				t.Errorf("%s: SessionEnd has no output schema, printed %s", label, out.Stdout)
				continue
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Stdout))
			if err != nil {
				t.Errorf("%s: not JSON: %s", label, out.Stdout)
				continue
			}
			if err := schemas[native].Validate(inst); err != nil {
				t.Errorf("%s: %s does not match Codex's schema: %v", label, out.Stdout, err)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d non-empty outputs validated", n)
	}
}

func encode(native string, d loop.Decision) map[string]any {
	out := New().Encode(loop.HookEvent{Name: native, NativeName: native}, d)
	if len(out.Stdout) == 0 {
		return nil
	}
	var m map[string]any
	json.Unmarshal(out.Stdout, &m)
	return m
}

// TestEncodeSemantics checks each output is the form Codex was seen to honour
// (payloads/README.md "Output protocol").
func TestEncodeSemantics(t *testing.T) {
	if m := encode("PreToolUse", loop.Decision{Action: loop.Allow}); m != nil {
		t.Errorf("allow must print nothing, got %v", m)
	}
	for _, ev := range []string{"PreToolUse", "Stop", "SubagentStop", "UserPromptSubmit", "PostToolUse"} {
		m := encode(ev, loop.Decision{Action: loop.Block, Reason: "R"})
		if m["decision"] != "block" || m["reason"] != "R" || len(m) != 2 {
			t.Errorf("%s block: %v", ev, m)
		}
	}
	// Codex appends ". Command: <cmd>" to a PreToolUse reason.
	if m := encode("PreToolUse", loop.Decision{Action: loop.Block, Reason: "use a safer way."}); m["reason"] != "use a safer way" {
		t.Errorf("PreToolUse reason keeps its final period: %v", m)
	}
	if m := encode("Stop", loop.Decision{Action: loop.Block, Reason: "done."}); m["reason"] != "done." {
		t.Errorf("Stop reason changed: %v", m)
	}
	m := encode("Stop", loop.Decision{Action: loop.Block})
	if r, _ := m["reason"].(string); r == "" {
		t.Errorf("block without reason must still carry one (Codex fails open otherwise): %v", m)
	}
	m = encode("PermissionRequest", loop.Decision{Action: loop.Block, Reason: "R"})
	hso, _ := m["hookSpecificOutput"].(map[string]any)
	dec, _ := hso["decision"].(map[string]any)
	if hso["hookEventName"] != "PermissionRequest" || dec["behavior"] != "deny" || dec["message"] != "R" {
		t.Errorf("PermissionRequest deny: %v", m)
	}
	if m := encode("PermissionRequest", loop.Decision{Action: loop.Allow}); m != nil {
		t.Errorf("PermissionRequest allow must print nothing (an allow would skip Codex's own review): %v", m)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"} {
		m := encode(ev, loop.Decision{Action: loop.Steer, Context: "C"})
		hso, _ := m["hookSpecificOutput"].(map[string]any)
		if hso["hookEventName"] != ev || hso["additionalContext"] != "C" || len(m) != 1 {
			t.Errorf("%s steer: %v", ev, m)
		}
	}
	if m := encode("Stop", loop.Decision{Action: loop.Steer, Context: "C"}); m != nil {
		t.Errorf("Stop cannot carry context: %v", m)
	}
	m = encode("Stop", loop.Decision{Action: loop.Allow, Outcome: "capped", SystemMessage: "capped"})
	if m["systemMessage"] != "capped" || m["decision"] != nil {
		t.Errorf("capped: %v", m)
	}
	m = encode("SessionStart", loop.Decision{Action: loop.Block, Reason: "not armed"})
	if m["continue"] != false || m["stopReason"] != "not armed" {
		t.Errorf("SessionStart refusal: %v", m)
	}
	out := New().Encode(loop.HookEvent{Name: "Stop", NativeName: "Stop"}, loop.Decision{Action: loop.Block, Reason: "R"})
	if !regexp.MustCompile(`^\{.*\}\n$`).Match(out.Stdout) || len(out.Stderr) != 0 {
		t.Errorf("stdout must be one JSON line: %q", out.Stdout)
	}
}
