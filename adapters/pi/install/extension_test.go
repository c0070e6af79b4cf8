package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/need"
)

func TestRenderPiExtensionQuotesPaths(t *testing.T) {
	x := PiExtension{
		HookLoop:    `/opt/my tools/hook-loop`,
		Config:      `/home/a "b"/proj dir/hook-loop.json`,
		EventLog:    `C:\logs\events.jsonl`,
		FailClosed:  true,
		TimeoutMS:   1234,
		Version:     "v1.2.3",
		HooksConfig: "",
	}
	out, err := renderExtension(x)
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	if strings.Contains(src, "{{") {
		t.Fatalf("unrendered action left in the extension")
	}
	for _, want := range []string{
		`const HOOK_LOOP: string = "/opt/my tools/hook-loop";`,
		`const CONFIG: string = "/home/a \"b\"/proj dir/hook-loop.json";`,
		`const EVENT_LOG: string = "C:\\logs\\events.jsonl";`,
		`const HOOKS_CONFIG: string = "";`,
		`const TIMEOUT_MS: number = 1234;`,
		`const DEFAULT_FAIL_CLOSED: boolean = true;`,
		`const DEFAULT_MAX_STOP_BLOCKS: number = 8;`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("extension lacks %s", want)
		}
	}
	if _, err := renderExtension(PiExtension{}); err == nil {
		t.Errorf("an empty binary path rendered")
	}
}

// piJiti is node and the jiti loader of the pi that scripts/install-harnesses.sh
// installed; the test skips (fails under CI) without them.
func piJiti(t *testing.T) (node, jiti string) {
	t.Helper()
	return need.Node(t), need.HarnessFile(t, "pi", "node_modules", "jiti", "lib", "jiti.mjs")
}

// TestPiExtensionBehaviour loads the rendered extension with jiti, the loader pi
// itself uses for .ts extensions (so a syntax error fails here), and drives its
// handlers with a fake pi and a fake hook-loop (testdata/pi/driver.mjs).
func TestPiExtensionBehaviour(t *testing.T) {
	node, jiti := piJiti(t)
	tmp := t.TempDir()
	proj := filepath.Join(tmp, "proj dir")
	fakeDir := filepath.Join(tmp, "calls")
	for _, d := range []string{proj, fakeDir, filepath.Join(tmp, "ext dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hook, err := filepath.Abs(filepath.Join("testdata", "pi", "fake-hook.sh"))
	if err != nil {
		t.Fatal(err)
	}
	driver, _ := filepath.Abs(filepath.Join("testdata", "pi", "driver.mjs"))
	config := filepath.Join(proj, "hook-loop.json")
	eventLog := filepath.Join(proj, ".hook-loop", "events.jsonl")
	src, err := renderExtension(PiExtension{HookLoop: hook, Config: config, EventLog: eventLog})
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Join(tmp, "ext dir", "hook_loop.ts")
	if err := os.WriteFile(ext, src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, driver, jiti, ext, fakeDir)
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "FAKE_DIR="+fakeDir, "EXT_CONFIG="+config, "EXT_EVENT_LOG="+eventLog)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("driver output:\n%s", out.String())
	if err != nil {
		t.Fatalf("extension behaviour: %v", err)
	}
	if !strings.Contains(out.String(), "ok   print mode") {
		t.Fatalf("the driver did not run its checks")
	}
}

// TestPiExtensionUserScopeIsInertOutsideLoops: with no loop file baked in and none
// found upwards from pi's cwd, the extension never calls hook-loop.
func TestPiExtensionUserScopeIsInertOutsideLoops(t *testing.T) {
	src, err := renderExtension(PiExtension{HookLoop: "/bin/false"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(`const CONFIG: string = "";`)) {
		t.Fatalf("user-scope render baked a config")
	}
	node, jiti := piJiti(t)
	tmp := t.TempDir()
	ext := filepath.Join(tmp, "hook_loop.ts")
	marker := filepath.Join(tmp, "called")
	hook := filepath.Join(tmp, "hook.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\necho '{\"action\":\"block\",\"reason\":\"r\"}'\nexit 2\n"), 0o755)
	src, _ = renderExtension(PiExtension{HookLoop: hook})
	os.WriteFile(ext, src, 0o644)
	outside := filepath.Join(tmp, "no loop here")
	inside := filepath.Join(tmp, "looped", "sub dir")
	os.MkdirAll(outside, 0o755)
	os.MkdirAll(inside, 0o755)
	os.WriteFile(filepath.Join(tmp, "looped", "hook-loop.json"), []byte(`{}`), 0o644)
	// A gated project whose loop file was deleted still has its log: still gated.
	gone := filepath.Join(tmp, "loop file deleted")
	os.MkdirAll(filepath.Join(gone, ".hook-loop"), 0o755)
	os.WriteFile(filepath.Join(gone, ".hook-loop", "events.jsonl"), nil, 0o644)
	script := `
const { createJiti } = await import(process.argv[1]);
const f = await createJiti(import.meta.url).import(process.argv[2], { default: true });
const h = {};
f({ on: (n, fn) => (h[n] = fn), sendUserMessage() {} });
const ctx = (cwd) => ({ cwd, hasUI: false, sessionManager: { getSessionId: () => "s" } });
const ev = { type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: "ls" } };
const a = await h.tool_call(ev, ctx(process.argv[3]));
if (a !== undefined) { console.error("called outside a loop project"); process.exit(1); }
const b = await h.tool_call(ev, ctx(process.argv[4]));
if (!b || b.block !== true) { console.error("not called inside a loop project: " + JSON.stringify(b)); process.exit(1); }
const c = await h.tool_call(ev, ctx(process.argv[5]));
if (!c || c.block !== true) { console.error("not called in a gated project whose loop file was deleted: " + JSON.stringify(c)); process.exit(1); }
`
	cmd := exec.Command(node, "--input-type=module", "-e", script, jiti, ext, outside, inside, gone)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}
