package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/gemini"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
	"github.com/hook-loop/hook-loop/testkit/cmdrun"
	"github.com/tidwall/gjson"
)

const userSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "audit.sh", "timeout": 5000}]},
      {"hooks": [{"type": "command", "command": "/old/hook-loop gemini-hook --event BeforeTool"}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
  },
  "model": {"name": "gemini-2.5-pro"}
}`

func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestMergeKeepsTheUsersSettingsAndHooks(t *testing.T) {
	h := installHooks{Hook: settingshooks.Hook{Binary: "/opt/hook loop/hook-loop", Subcommand: "gemini-hook", Config: pathArg("/p/hook-loop.json", "/p"), Log: pathArg("/p/.hook-loop/events.jsonl", "/p")}, Matcher: "^(write_file)$"}
	merged, err := mergeSettings([]byte(userSettings), h)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"security", "model", "hooks.Notification", "hooks.BeforeTool.0"} {
		if got, want := gjson.GetBytes(merged, path).Raw, gjson.Get(userSettings, path).Raw; canonical(t, []byte(got)) != canonical(t, []byte(want)) {
			t.Errorf("%s changed:\n got %s\nwant %s", path, got, want)
		}
	}
	cmds := hookCommands(merged)
	if len(cmds) != len(gemini.NativeEvents) {
		t.Fatalf("hook-loop hooks for %d events, want %d: %v", len(cmds), len(gemini.NativeEvents), cmds)
	}
	for _, ev := range gemini.NativeEvents {
		want := `'/opt/hook loop/hook-loop' gemini-hook --event ` + ev + ` --config $GEMINI_PROJECT_DIR/hook-loop.json --event-log $GEMINI_PROJECT_DIR/.hook-loop/events.jsonl`
		if len(cmds[ev]) != 1 || cmds[ev][0] != want {
			t.Errorf("%s: %q, want exactly %q (the old one replaced)", ev, cmds[ev], want)
		}
	}
	gjson.GetBytes(merged, "hooks").ForEach(func(ev, groups gjson.Result) bool {
		for _, g := range groups.Array() {
			if !isHookCommand(g.Get("hooks.0.command").String()) {
				continue
			}
			if m := g.Get("matcher"); gemini.IsToolEvent(ev.String()) != m.Exists() {
				t.Errorf("%s: matcher %s", ev, m.Raw)
			}
			if g.Get("hooks.0.timeout").Int() != hookTimeoutMS {
				t.Errorf("%s: timeout %s, want %d ms", ev, g.Get("hooks.0.timeout").Raw, hookTimeoutMS)
			}
		}
		return true
	})
	again, _ := mergeSettings(merged, h)
	if string(again) != string(merged) {
		t.Error("re-install changed the file")
	}
	removed, n, err := removeSettings(merged)
	if err != nil || n != len(gemini.NativeEvents) {
		t.Fatalf("removed %d (%v), want %d", n, err, len(gemini.NativeEvents))
	}
	want, _, _ := removeSettings([]byte(userSettings))
	if canonical(t, removed) != canonical(t, want) {
		t.Errorf("after install+uninstall:\n%s\nwant\n%s", removed, want)
	}
	if gjson.GetBytes(removed, "hooks.AfterAgent").Exists() {
		t.Error("an event list left empty was kept")
	}
}

// Gemini CLI substitutes $GEMINI_PROJECT_DIR with the shell-quoted folder:
// quoting it again would break a path with a space.
func TestPathArg(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"/p/hook-loop.json", `$GEMINI_PROJECT_DIR/hook-loop.json`},
		{"/p/loops/my loop.json", `$GEMINI_PROJECT_DIR/'loops/my loop.json'`},
		{"/elsewhere/log.jsonl", `/elsewhere/log.jsonl`},
		{"/elsewhere/a b.jsonl", `'/elsewhere/a b.jsonl'`},
	} {
		if got := pathArg(tt.path, "/p"); got != tt.want {
			t.Errorf("pathArg(%s) = %s, want %s", tt.path, got, tt.want)
		}
	}
	if got := expandProjectDir(`x --config $GEMINI_PROJECT_DIR/hook-loop.json`, "/my proj"); got != `x --config '/my proj'/hook-loop.json` {
		t.Errorf("expandProjectDir = %s", got)
	}
}

func TestToolMatcher(t *testing.T) {
	load := func(name string) *dsl.Spec {
		data, err := gallery.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		spec, _, err := dsl.Parse(name+".json", data)
		if err != nil {
			t.Fatal(err)
		}
		return spec
	}
	if got, want := toolMatcher(load("plan_execute")), "^(apply_patch|glob|grep_search|list_directory|read_file|read_many_files|replace|run_shell_command|search_file_content|write_file|mcp_.*)$"; got != want {
		t.Errorf("plan_execute matcher = %s, want %s", got, want)
	}
	if got := toolMatcher(nil); got != "*" {
		t.Errorf("no spec: %s", got)
	}
}

func TestSettingsPath(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if p, _ := SettingsPath("project", "/p", "/h", getenv); p != "/p/.gemini/settings.json" {
		t.Error(p)
	}
	if p, _ := SettingsPath("user", "/p", "/h", getenv); p != "/h/.gemini/settings.json" {
		t.Error(p)
	}
	env["GEMINI_CLI_HOME"] = "/g"
	if p, _ := SettingsPath("user", "/p", "/h", getenv); p != "/g/.gemini/settings.json" {
		t.Error(p)
	}
	if _, err := SettingsPath("local", "/p", "/h", getenv); err == nil || !strings.Contains(err.Error(), "expected one of project, user") {
		t.Errorf("--scope local: %v", err)
	}
}

func TestCheckGemini(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	env := &setup.DoctorEnv{Dir: dir, Home: home}
	vars := map[string]string{"PATH": t.TempDir()}
	getenv := func(k string) string { return vars[k] }
	text := func() string {
		var b strings.Builder
		setup.PrintFindings(&b, setup.Named("gemini", checkInstall(env, getenv)))
		return b.String()
	}
	if got := text(); !strings.Contains(got, "warn gemini: hook-loop is not installed for Gemini CLI") {
		t.Errorf("empty project:\n%s", got)
	}

	// A gemini on PATH as npm links it, of the measured version.
	pkg := filepath.Join(t.TempDir(), "node_modules", "@google", "gemini-cli")
	write(t, filepath.Join(pkg, "package.json"), `{"name":"@google/gemini-cli","version":"0.61.0"}`)
	write(t, filepath.Join(pkg, "bundle", "gemini.js"), "#!/usr/bin/env node\n")
	if err := os.Chmod(filepath.Join(pkg, "bundle", "gemini.js"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(pkg, "bundle", "gemini.js"), filepath.Join(vars["PATH"], "gemini")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "hook loop")
	write(t, bin, "#!/bin/sh\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	loopData, _ := gallery.Get("plan_execute")
	write(t, filepath.Join(dir, "hook-loop.json"), string(loopData))
	h := installHooks{Hook: settingshooks.Hook{Binary: bin, Subcommand: "gemini-hook", Config: pathArg(filepath.Join(dir, "hook-loop.json"), dir)}, Matcher: "*"}
	doc, err := mergeSettings([]byte(`{"model":{"name":"x"}}`), h)
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, ".gemini", "settings.json")
	write(t, settings, string(doc))
	trusted := filepath.Join(home, ".gemini", "trustedFolders.json")
	write(t, trusted, `{"`+filepath.Dir(dir)+`": "TRUST_FOLDER"}`)
	got := text()
	for _, want := range []string{
		"ok   gemini: " + settings + " has hook-loop hooks for all 7 events",
		"ok   gemini: hook binary " + bin + " is executable",
		"ok   gemini: the loop file " + filepath.Join(dir, "hook-loop.json") + " is valid",
		"ok   gemini: hooks are enabled",
		"ok   gemini: Gemini CLI trusts " + dir + " (TRUST_FOLDER in " + trusted + ")",
		"is Gemini CLI 0.61.0 (measured with 0.61.0)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "fail") || strings.Contains(got, "warn") {
		t.Errorf("a good install has problems:\n%s", got)
	}

	// Broken: the project untrusted, hooks off in the user's settings,
	// hook-loop's command disabled, a second scope, an old gemini.
	write(t, trusted, `{"`+filepath.Dir(dir)+`": "TRUST_FOLDER", "`+dir+`": "DO_NOT_TRUST"}`)
	user, _ := mergeSettings([]byte(`{"hooksConfig": {"enabled": false}}`), h)
	write(t, filepath.Join(home, ".gemini", "settings.json"), string(user))
	doc, _ = mergeSettings([]byte(`{"hooksConfig": {"disabled": ["`+h.Command("AfterAgent")+`"]}}`), h)
	write(t, settings, string(doc))
	write(t, filepath.Join(pkg, "package.json"), `{"name":"@google/gemini-cli","version":"0.26.1"}`)
	got = text()
	for _, want := range []string{
		"fail gemini: " + trusted + " marks " + dir + " DO_NOT_TRUST",
		"fail gemini: " + filepath.Join(home, ".gemini", "settings.json") + " sets hooksConfig.enabled: false",
		"fail gemini: " + settings + " lists 1 hook-loop command(s) in hooksConfig.disabled",
		"warn gemini: hook-loop hooks are installed in " + settings + " and ",
		"is Gemini CLI 0.26.1, older than 0.61.0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, got)
		}
	}
	vars["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	if got := text(); !strings.Contains(got, "ok   gemini: GEMINI_CLI_TRUST_WORKSPACE=true") {
		t.Errorf("the environment's trust is not seen:\n%s", got)
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// With no hook-loop hooks anywhere, the doctor still reports what it found
// broken (a settings file Gemini CLI cannot parse, hooks switched off): the
// "not installed" finding stands alone only when nothing else is wrong, so
// that doctor hides a harness nobody chose.
func TestCheckGeminiNotInstalledKeepsFailures(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	env := &setup.DoctorEnv{Dir: dir, Home: home}
	getenv := func(k string) string { return map[string]string{"PATH": dir}[k] }
	if fs := checkInstall(env, getenv); !setup.NotInstalled(fs) {
		t.Errorf("nothing there: %+v", fs)
	}
	settings := filepath.Join(dir, ".gemini", "settings.json")
	user := filepath.Join(home, ".gemini", "settings.json")
	write(t, settings, `{"hooks": `)
	write(t, user, `{"hooksConfig": {"enabled": false}}`)
	fs := checkInstall(env, getenv)
	if setup.NotInstalled(fs) {
		t.Fatalf("failures hidden behind not installed: %+v", fs)
	}
	var b strings.Builder
	setup.PrintFindings(&b, setup.Named("gemini", fs))
	got := b.String()
	for _, want := range []string{
		"fail gemini: " + settings + " is not a valid settings file",
		"fail gemini: " + user + " sets hooksConfig.enabled: false",
		"warn gemini: hook-loop is not installed for Gemini CLI",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, got)
		}
	}
}

// uninstall --purge --write also removes the loop file, as the shared
// uninstall's "add --purge to remove it" says.
func TestUninstallPurge(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	run := func(args ...string) string {
		return cmdrun.Run(t, Harness.NewCmd, dir, home, append([]string{"gemini"}, args...)...)
	}
	run("install", "--profile", "plan_execute", "--write")
	loopFile := filepath.Join(dir, "hook-loop.json")
	if _, err := os.Stat(loopFile); err != nil {
		t.Fatalf("install wrote no loop file: %v", err)
	}
	out := run("uninstall", "--purge", "--write")
	if _, err := os.Stat(loopFile); err == nil {
		t.Errorf("uninstall --purge left %s:\n%s", loopFile, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json")); err == nil && strings.Contains(string(b), "gemini-hook") {
		t.Errorf("uninstall left hook-loop's hooks:\n%s", b)
	}
}
