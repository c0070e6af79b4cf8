package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/version"
)

// CheckBinary fails on each way a hook's binary can keep the harness from
// running hook-loop, and passes an executable file.
func TestCheckBinary(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "hook-loop")
	plain := filepath.Join(dir, "plain")
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{{exe, 0o755}, {plain, 0o644}} {
		if err := os.WriteFile(f.path, []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		bin   string
		level Level
		what  string
	}{
		{"hook-loop", LevelFail, "by bare name"},
		{filepath.Join(dir, "gone"), LevelFail, "which does not exist"},
		{plain, LevelFail, "which is not executable"},
		{dir, LevelFail, "which is not executable"},
		{exe, LevelOK, "hook binary " + exe + " is executable"},
	} {
		f := CheckBinary("settings.json", tc.bin, "hook-loop x install --write", "X")
		if f.Level != tc.level || !strings.Contains(f.What, tc.what) {
			t.Errorf("CheckBinary(%s) = %s %q, want %s containing %q", tc.bin, f.Level, f.What, tc.level, tc.what)
		}
		if tc.level == LevelFail && f.Fix == "" {
			t.Errorf("CheckBinary(%s): a failure without a fix", tc.bin)
		}
	}
}

// CheckLoop passes a loop that loads and fails, on one line, one that does not.
func TestCheckLoop(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"loop": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := CheckLoop(bad); f.Level != LevelFail || !strings.Contains(f.What, "does not load") || strings.Contains(f.What, "\n") {
		t.Errorf("CheckLoop(bad) = %s %q", f.Level, f.What)
	}
	if f := CheckLoop(filepath.Join(dir, "missing.json")); f.Level != LevelFail {
		t.Errorf("CheckLoop(missing) = %s %q", f.Level, f.What)
	}
	data, err := gallery.Get(gallery.Default)
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "hook-loop.json")
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if f := CheckLoop(good); f.Level != LevelOK {
		t.Errorf("CheckLoop(%s) = %s %q", good, f.Level, f.What)
	}
}

// A lean hook binary is checked for what makes it serve every event: hook-loop
// beside it, and this build.
func TestCheckBinaryLean(t *testing.T) {
	dir := t.TempDir()
	lean := filepath.Join(dir, scaffold.LeanName)
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(lean, "printf '%s\\n' '"+version.Build()+"'\n")
	if f := CheckBinary("hooks.json", lean, "hook-loop codex install --write", "Codex"); f.Level != LevelWarn || !strings.Contains(f.What, "no hook-loop beside it") {
		t.Errorf("alone: %s %q", f.Level, f.What)
	}
	write(filepath.Join(dir, "hook-loop"), "")
	if f := CheckBinary("hooks.json", lean, "hook-loop codex install --write", "Codex"); f.Level != LevelOK {
		t.Errorf("same build: %s %q", f.Level, f.What)
	}
	write(lean, "echo v0.1-old\n")
	if f := CheckBinary("hooks.json", lean, "hook-loop codex install --write", "Codex"); f.Level != LevelWarn || !strings.Contains(f.What, "not of this hook-loop's build") || f.Fix == "" {
		t.Errorf("another build: %s %q", f.Level, f.What)
	}
}

// TestCheckMatchers: a tool event's matcher that leaves out a wanted tool
// fails, naming the file, the event and the tools; other events' groups and
// other commands' matchers are not judged.
func TestCheckMatchers(t *testing.T) {
	doc := []byte(`{"hooks": {
		"BeforeTool": [{"matcher": "^(read_file|write_file)$", "hooks": [{"type": "command", "command": "hook-loop gemini-hook --event BeforeTool"}]},
			{"matcher": "x", "hooks": [{"type": "command", "command": "other"}]}],
		"AfterTool": [{"matcher": "^(grep_search|read_file|write_file|mcp_.*)$", "hooks": [{"type": "command", "command": "hook-loop gemini-hook --event AfterTool"}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "hook-loop gemini-hook --event SessionStart"}]}]}}`)
	var out Findings
	ours := func(c string) bool { return strings.Contains(c, "gemini-hook") }
	isTool := func(ev string) bool { return ev == "BeforeTool" || ev == "AfterTool" }
	CheckMatchers(&out, "/p/.gemini/settings.json", doc, ours, isTool, []string{"grep_search", "read_file", "mcp_x"}, "reinstall")
	if len(out) != 1 || out[0].Level != LevelFail || out[0].Fix != "reinstall" ||
		!strings.Contains(out[0].What, `/p/.gemini/settings.json: the BeforeTool matcher "^(read_file|write_file)$" does not show hook-loop grep_search, mcp_x`) {
		t.Fatalf("findings = %+v", out)
	}
}
