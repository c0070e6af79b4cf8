package harness

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/diag/jsonkind"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/tidwall/gjson"
)

// OptionalString reads an optional string field of a hook payload: absent or
// null is "", a value of another type an error naming its JSON path.
func OptionalString(obj gjson.Result, path string) (string, error) {
	v := obj.Get(path)
	if !v.Exists() || v.Type == gjson.Null {
		return "", nil
	}
	if v.Type != gjson.String {
		return "", fmt.Errorf("$.%s is %s: expected a string", path, jsonkind.Of(v))
	}
	return v.Str, nil
}

// TargetPath is a path a tool call writes, as the engine judges it: relative
// to the harness's cwd when not absolute, cleaned; "" stays "". It is read
// as Claude Code's file tools read theirs: blanks around it trimmed, and a
// leading "~/" left for the engine to expand to the agent's home.
func TargetPath(cwd, p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "~/") {
		return p
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// Model is the model a hook payload names at its top level ("model"), or ""
// when it names none as a string.
func Model(root gjson.Result) string {
	if v := root.Get("model"); v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// LifecycleFields reads what Claude Code's payloads and those modelled on
// them (Copilot CLI, Qwen Code) share: the one "why" string a lifecycle event
// has (SessionStart's source, Pre/PostCompact's trigger, SessionEnd's reason:
// the engine uses the reason to tell a session a person ended from one the
// harness ended) into ev.Source, and stop_hook_active.
func LifecycleFields(root gjson.Result, ev *loop.HookEvent) error {
	for _, p := range []string{"source", "trigger", "reason"} {
		if v, err := OptionalString(root, p); err != nil {
			return err
		} else if v != "" {
			ev.Source = v
			break
		}
	}
	if v := root.Get("stop_hook_active"); v.Exists() {
		if v.Type != gjson.True && v.Type != gjson.False {
			return fmt.Errorf("$.stop_hook_active is %s: expected true or false", jsonkind.Of(v))
		}
		ev.StopHookActive = v.Bool()
	}
	return nil
}
