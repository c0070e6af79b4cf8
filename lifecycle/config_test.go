package lifecycle_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// sdk/hooks may not import loop, so the names are written twice; they must agree.
func TestPointNamesAgreeWithLoop(t *testing.T) {
	loopPoints := []string{
		hooks.PointLoopStart, hooks.PointSessionStart, hooks.PointSessionSpawned, hooks.PointInputReceived, hooks.PointToolRequested,
		hooks.PointPhaseChanged, hooks.PointWaitingForInput, hooks.PointLoopComplete,
	}
	if got := hooks.PointNames(); !reflect.DeepEqual(got, loopPoints) {
		t.Errorf("sdk/hooks points %v != loop points %v", got, loopPoints)
	}
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadValidConfig(t *testing.T) {
	p := writeConfig(t, `{
	  "loops": {"ignored": "other parts of hook-loop own other keys"},
	  "hooks": [
	    {"name": "roster", "command": ["bin/roster", "--strict"], "on": ["loop_start"], "required": true, "timeoutSeconds": 2.5, "with": {"sessions": ["a"], "n": 3}},
	    {"name": "house-rules", "command": "./house-rules --rules 'be kind'", "enabled": false},
	    {"name": "python", "command": "python3 hook.py"},
	    {"name": "compliance", "url": "https://hooks.example/loop", "tokenEnv": "ACME_TOKEN", "headers": {"X-Team": "platform"}},
	    {"name": "local", "url": "http://127.0.0.1:8765/"},
	    {"name": "local6", "url": "http://[::1]:8765/", "tokenEnv": "T"},
	    {"name": "localhost", "url": "http://localhost:8765/", "tokenEnv": "T"}
	  ]}`)
	entries, err := lifecycle.ParseFile(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if len(entries) != 7 {
		t.Fatalf("entries = %d", len(entries))
	}
	r := entries[0]
	if !reflect.DeepEqual(r.Command, []string{filepath.Join(dir, "bin/roster"), "--strict"}) {
		t.Errorf("command = %v: a relative path resolves against the config's directory", r.Command)
	}
	if r.Dir != dir || !r.Required || r.Disabled || r.Timeout != 2500*time.Millisecond || !reflect.DeepEqual(r.On, []string{"loop_start"}) {
		t.Errorf("roster = %+v", r)
	}
	if !reflect.DeepEqual(r.With, map[string]any{"sessions": []any{"a"}, "n": int64(3)}) {
		t.Errorf("with = %#v", r.With)
	}
	h := entries[1]
	if !reflect.DeepEqual(h.Command, []string{filepath.Join(dir, "house-rules"), "--rules", "be kind"}) || !h.Disabled || h.Required {
		t.Errorf("house-rules = %+v", h)
	}
	if py := entries[2]; !reflect.DeepEqual(py.Command, []string{"python3", "hook.py"}) || py.Timeout != 0 {
		t.Errorf("a bare program name stays for PATH: %v", py.Command)
	}
	if c := entries[3]; c.Kind() != "url" || c.TokenEnv != "ACME_TOKEN" || c.Headers["X-Team"] != "platform" || len(c.Points()) != len(hooks.Points) {
		t.Errorf("compliance = %+v", c)
	}
}

func TestLoadRejectsMalformedEntries(t *testing.T) {
	cases := []struct{ hooks, want string }{
		{`[{"name":"roster","command":["x"],"timeoutSeconds":0}]`, `hooks[0] ("roster").timeoutSeconds: expected a positive number`},
		{`[{"name":"a","command":["x"]},{"name":"roster","command":["x"],"timeoutSeconds":"10"}]`, `hooks[1] ("roster").timeoutSeconds: expected a positive number`},
		{`[{"name":"Roster","command":["x"]}]`, `hooks[0] ("Roster").name: expected a string matching ^[a-z][a-z0-9-]*$`},
		{`[{"command":["x"]}]`, `hooks[0].name: expected a string`},
		{`[{"name":"a","command":["x"]},{"name":"a","command":["y"]}]`, `hooks[1] ("a").name: duplicate of hooks[0]`},
		{`[{"name":"a"}]`, `hooks[0] ("a").command: expected exactly one of command, path, module, url, got none`},
		{`[{"name":"a","command":["x"],"url":"https://h/"}]`, `got command and url`},
		{`[{"name":"a","command":[]}]`, `hooks[0] ("a").command: expected a program to run`},
		{`[{"name":"a","command":[1]}]`, `hooks[0] ("a").command: element 0: expected a string`},
		{`[{"name":"a","command":["x"],"on":["work_items_start"]}]`, `hooks[0] ("a").on[0]: expected one of loop_start, session_start`},
		{`[{"name":"a","command":["x"],"on":[]}]`, `hooks[0] ("a").on: expected a non-empty array`},
		{`[{"name":"a","command":["x"],"required":"yes"}]`, `hooks[0] ("a").required: expected true or false`},
		{`[{"name":"a","command":["x"],"enabled":1}]`, `hooks[0] ("a").enabled: expected true or false`},
		{`[{"name":"a","command":["x"],"with":[]}]`, `hooks[0] ("a").with: expected an object`},
		{`[{"name":"a","command":["x"],"comand":["x"]}]`, `hooks[0] ("a").comand: unknown key`},
		{`[{"name":"a","command":["x"],"tokenEnv":"T"}]`, `hooks[0] ("a").tokenEnv: only a url entry takes tokenEnv`},
		{`[{"name":"a","url":"https://h/","tokenEnv":"sk-live-123 456"}]`, `hooks[0] ("a").tokenEnv: expected the name of an environment variable`},
		{`[{"name":"a","url":"https://h/","headers":{"authorization":"Bearer x"}}]`, `hooks[0] ("a").headers.authorization: refused: put the token's variable name in tokenEnv`},
		{`[{"name":"a","url":"https://h/","headers":{"X":1}}]`, `hooks[0] ("a").headers.X: expected a string`},
		{`[{"name":"a","url":"http://hooks.example/","tokenEnv":"T"}]`, `hooks[0] ("a").url: refused: http:// to non-loopback host "hooks.example" would send the tokenEnv token in clear`},
		{`[{"name":"a","url":"http://10.0.0.5/"}]`, `hooks[0] ("a").url: refused: http:// to non-loopback host "10.0.0.5"`},
		{`[{"name":"a","url":"https://user:pw@h/"}]`, `credentials in the URL`},
		{`[{"name":"a","url":"ftp://h/"}]`, `got scheme "ftp"`},
		{`[{"name":"a","url":"/relative"}]`, `expected an absolute http(s) URL`},
		{`[{"name":"a","path":""}]`, `hooks[0] ("a").path: expected the path of a script or executable`},
		{`[{"name":"a","module":"acme-hooks"}]`, `hooks[0] ("a").module: expected a Python module as pkg.mod or pkg.mod:Class, got "acme-hooks"`},
		{`[{"name":"a","module":"m","path":"p.py"}]`, `got path and module`},
		{`[{"name":"a","module":"m","keepAlive":"yes"}]`, `hooks[0] ("a").keepAlive: expected true or false`},
		{`[{"name":"a","module":"m","idleSeconds":-1}]`, `hooks[0] ("a").idleSeconds: expected a positive number`},
		{`[{"name":"a","url":"https://h/","keepAlive":true}]`, `hooks[0] ("a").keepAlive: a url entry is not a process`},
		{`[{"name":"a","path":"x.py","tokenEnv":"T"}]`, `hooks[0] ("a").tokenEnv: only a url entry takes tokenEnv`},
		{`{"name":"a"}`, `hooks: expected an array`},
		{`["a"]`, `hooks[0]: expected an object`},
	}
	for _, tc := range cases {
		p := writeConfig(t, `{"hooks":`+tc.hooks+`}`)
		_, err := lifecycle.Load(p)
		if err == nil {
			t.Errorf("%s: loaded, want error %q", tc.hooks, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, p+": ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s:\n got  %s\n want %s: ...%s", tc.hooks, msg, p, tc.want)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("error is not one line: %q", msg)
		}
	}
	for body, want := range map[string]string{
		`{"hooks": [`: "not valid JSON",
		`[1]`:         "top level: expected an object",
		`{} {}`:       "data after the top-level value",
	} {
		if _, err := lifecycle.Load(writeConfig(t, body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", body, err, want)
		}
	}
}

// The lifecycle design's point names load as aliases of hook-loop's.
func TestDesignPointNamesLoadAsAliases(t *testing.T) {
	p := writeConfig(t, `{"hooks":[{"name":"a","command":["x"],"on":["work_item_start","session_spawn","session_spawned","work_item_complete","input_received"]}]}`)
	r, err := lifecycle.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	e := r.Entries()[0]
	if want := []string{"loop_start", "session_start", "session_spawned", "loop_complete", "input_received"}; !reflect.DeepEqual(e.On, want) {
		t.Errorf("on = %v, want %v", e.On, want)
	}
	if want := map[string]string{"work_item_start": "loop_start", "session_spawn": "session_start", "work_item_complete": "loop_complete"}; !reflect.DeepEqual(e.Aliases, want) {
		t.Errorf("aliases = %v", e.Aliases)
	}
	if !r.Active("loop_complete") || r.Active("tool_requested") {
		t.Error("an alias does not run at its point")
	}
	if _, err := lifecycle.NewRunner(lifecycle.Entry{Name: "b", Handler: struct{}{}, On: []string{"work_item_start"}}); err != nil {
		t.Errorf("NewRunner refused a design name: %v", err)
	}
}

func TestNewRunnerValidatesLikeTheFile(t *testing.T) {
	for _, e := range []lifecycle.Entry{
		{Name: "Bad", Handler: tagger{}},
		{Name: "x"},
		{Name: "x", Handler: tagger{}, URL: "https://h/"},
		{Name: "x", URL: "http://example.com/", TokenEnv: "T"},
		{Name: "x", URL: "https://h/", Headers: map[string]string{"AUTHORIZATION": "x"}},
		{Name: "x", Handler: tagger{}, On: []string{"nope"}},
	} {
		if _, err := lifecycle.NewRunner(e); err == nil {
			t.Errorf("NewRunner(%+v) accepted", e)
		}
	}
	if _, err := lifecycle.NewRunner(lifecycle.Entry{Name: "x", Handler: tagger{}}, lifecycle.Entry{Name: "x", Handler: tagger{}}); err == nil {
		t.Error("duplicate names accepted")
	}
}

func TestConfigPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	p, explicit := lifecycle.ConfigPath("/f/flag.json", env(map[string]string{"HOOK_LOOP_CONFIG": "/e/env.json"}))
	if p != "/f/flag.json" || !explicit {
		t.Errorf("flag: %s %v", p, explicit)
	}
	p, explicit = lifecycle.ConfigPath("", env(map[string]string{"HOOK_LOOP_CONFIG": "/e/env.json", "XDG_CONFIG_HOME": "/x"}))
	if p != "/e/env.json" || !explicit {
		t.Errorf("env: %s %v", p, explicit)
	}
	p, explicit = lifecycle.ConfigPath("", env(map[string]string{"XDG_CONFIG_HOME": "/x"}))
	if p != filepath.Join("/x", "hook-loop", "config.json") || explicit {
		t.Errorf("xdg: %s %v", p, explicit)
	}
}

func TestLoadConfigMissingDefaultIsNoHooks(t *testing.T) {
	xdg := t.TempDir()
	get := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return xdg
		}
		return ""
	}
	r, path, err := lifecycle.LoadConfig("", get)
	if err != nil || len(r.Entries()) != 0 || path != filepath.Join(xdg, "hook-loop", "config.json") {
		t.Fatalf("missing default: %v %v %s", r, err, path)
	}
	// A file named explicitly must exist.
	if _, _, err := lifecycle.LoadConfig(filepath.Join(xdg, "nope.json"), get); err == nil {
		t.Error("missing explicit file loaded")
	}
	// The default file is read when present.
	os.MkdirAll(filepath.Join(xdg, "hook-loop"), 0o755)
	os.WriteFile(filepath.Join(xdg, "hook-loop", "config.json"), []byte(`{"hooks":[{"name":"t","command":"t"}]}`), 0o644)
	r, _, err = lifecycle.LoadConfig("", get)
	if err != nil || len(r.Entries()) != 1 {
		t.Fatalf("default present: %v %v", r, err)
	}
}

func TestPathAndModuleForms(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	body := `{"hooks":[
		{"name":"py","path":"hooks/acme.py"},
		{"name":"js","path":"hooks/a.mjs","keepAlive":true,"idleSeconds":30},
		{"name":"bin","path":"/opt/hook"},
		{"name":"mod","module":"acme_hooks.telemetry:Telemetry"},
		{"name":"mod2","module":"acme_hooks","keepAlive":false}]}`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	entries, err := lifecycle.ParseFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"python3", filepath.Join(dir, "hooks", "acme.py")},
		{"node", filepath.Join(dir, "hooks", "a.mjs")},
		{"/opt/hook"},
		{"python3", "-m", "hook_loop_hooks.run", "acme_hooks.telemetry:Telemetry"},
		{"python3", "-m", "hook_loop_hooks.run", "acme_hooks"},
	}
	for i, e := range entries {
		if !reflect.DeepEqual(e.Argv(), want[i]) {
			t.Errorf("%s: argv %v, want %v", e.Name, e.Argv(), want[i])
		}
	}
	if k := []bool{entries[0].KeepAlive, entries[1].KeepAlive, entries[3].KeepAlive, entries[4].KeepAlive}; !reflect.DeepEqual(k, []bool{false, true, false, false}) {
		t.Errorf("keepAlive = %v (as written; ignored when run)", k)
	}
	if entries[1].Idle != 30*time.Second || entries[3].Kind() != "module" || entries[0].Kind() != "path" {
		t.Errorf("entries = %+v", entries)
	}
	// A module's file is found beside the declaration.
	if err := os.MkdirAll(filepath.Join(dir, "acme_hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "acme_hooks", "telemetry.py"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if f := entries[3].File(); f != filepath.Join(dir, "acme_hooks", "telemetry.py") {
		t.Errorf("module file = %q", f)
	}
}

func TestYAMLDeclaration(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.yaml")
	body := `# the design's form
critics: {}
hooks:
  - name: acme
    path: hooks/acme.py            # relative to THIS file's directory
    required: true
  - name: telemetry
    module: acme_loop_hooks.telemetry
    with: {team: platform, n: 3}
    on: [loop_start, loop_complete]
    timeoutSeconds: 2.5
  - name: compliance
    url: https://hooks.acme.example/hook-loop
    tokenEnv: ACME_HOOKS_TOKEN
`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	entries, err := lifecycle.ParseFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[0].Path != filepath.Join(dir, "hooks", "acme.py") || !entries[0].Required {
		t.Fatalf("entries = %+v", entries)
	}
	if e := entries[1]; !reflect.DeepEqual(e.With, map[string]any{"team": "platform", "n": int64(3)}) || e.Timeout != 2500*time.Millisecond || !reflect.DeepEqual(e.On, []string{"loop_start", "loop_complete"}) {
		t.Errorf("telemetry = %+v", e)
	}
	if entries[2].TokenEnv != "ACME_HOOKS_TOKEN" {
		t.Errorf("compliance = %+v", entries[2])
	}
	for body, want := range map[string]string{
		"hooks:\n  - name: a\n    comand: x\n": `config.yaml: hooks[0] ("a").comand: unknown key`,
		"hooks: [":                             "config.yaml: not valid YAML",
		"hooks:\n  - {1: 2}\n":                 "every key must be a string",
	} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := lifecycle.ParseFile(p); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want one line with %q", body, err, want)
		}
	}
}

func TestDefaultConfigYAMLOrJSON(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return home
		}
		return ""
	}
	dir := filepath.Join(home, "hook-loop")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"hooks":[{"name":"j","command":["x"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, path, err := lifecycle.LoadConfig("", getenv)
	if err != nil || filepath.Base(path) != "config.json" || r.Entries()[0].Name != "j" {
		t.Fatalf("json only: %v %s", err, path)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("hooks:\n  - {name: y, command: [x]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = lifecycle.LoadConfig("", getenv)
	if err == nil || !strings.Contains(err.Error(), "both "+filepath.Join(dir, "config.yaml")+" and "+filepath.Join(dir, "config.json")+" exist") {
		t.Fatalf("both: err = %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "config.json")); err != nil {
		t.Fatal(err)
	}
	r, path, err = lifecycle.LoadConfig("", getenv)
	if err != nil || filepath.Base(path) != "config.yaml" || r.Entries()[0].Name != "y" {
		t.Fatalf("yaml only: %v %s", err, path)
	}
}
