package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/loop"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Settings scopes.
const (
	scopeProject = "project" // <project>/.claude/settings.json, shared with the team
	scopeLocal   = "local"   // <project>/.claude/settings.local.json, this checkout only
	scopeUser    = "user"    // ~/.claude/settings.json, every project
)

// Flavor is what differs between Claude Code's settings files and those of a
// harness that reads hooks in Claude Code's shape (Qwen Code's
// .qwen/settings.json): where they are, the hook command's name, the variable
// the harness exports with the project directory, its events. Install,
// uninstall and doctor are the same code for every flavor.
type Flavor struct {
	// Name is the harness's short name: `hook-loop NAME install` writes
	// NAME-hook commands. Product is its name for people.
	Name, Product string
	// Dir is the settings folder in the project and in home (".claude").
	Dir string
	// Local: the harness also reads Dir/settings.local.json (the local scope).
	Local bool
	// ProjectDirVar is the variable the harness exports to every hook with the
	// project directory; project-scope commands name paths relative to it.
	ProjectDirVar string
	// Events are the native events install registers, in lifecycle order;
	// IsToolEvent says which take a tool matcher.
	Events      []string
	IsToolEvent func(string) bool
	// Matcher is the tool matcher for a loop; nil matches every tool.
	Matcher func(*loopdsl.Spec) string
	// Sandbox names the harness's sandbox when it runs shell commands in one
	// in dir ("" none), for doctor's state check; nil: none.
	Sandbox func(dir, home string) string
	// Doctor adds the harness's own checks (trust, version); nil: none.
	Doctor func(env *setup.DoctorEnv, out *setup.Findings)
}

// Claude is Claude Code.
var Claude = &Flavor{Name: "claude", Product: "Claude Code", Dir: ".claude", Local: true,
	ProjectDirVar: "CLAUDE_PROJECT_DIR", Events: claude.NativeEvents, IsToolEvent: claude.IsToolEvent,
	Matcher: toolMatcher, Sandbox: claudeSandbox}

// Scopes lists the flavor's scopes in the order Claude Code's docs give them.
func (fl *Flavor) Scopes() []string {
	if fl.Local {
		return []string{scopeProject, scopeLocal, scopeUser}
	}
	return []string{scopeProject, scopeUser}
}

// projectDirVar is the project directory variable as commands write it.
func (fl *Flavor) projectDirVar() string { return `"$` + fl.ProjectDirVar + `"` }

// reinstall is doctor's fix: the install command.
func (fl *Flavor) reinstall() string { return "hook-loop " + fl.Name + " install --write" }

// claudeHookTimeout (seconds) is longer than hookrun's own deadline, so Claude
// Code never kills hook-loop mid-append; hook-loop answers first.
const claudeHookTimeout = 30

// SettingsPath returns the settings file of scope.
func (fl *Flavor) SettingsPath(scope, projectDir, home string) (string, error) {
	switch {
	case scope == scopeProject || scope == "":
		return filepath.Join(projectDir, fl.Dir, "settings.json"), nil
	case scope == scopeLocal && fl.Local:
		return filepath.Join(projectDir, fl.Dir, "settings.local.json"), nil
	case scope == scopeUser:
		if home == "" {
			return "", fmt.Errorf("--scope user: no home directory (set HOME)")
		}
		return filepath.Join(home, fl.Dir, "settings.json"), nil
	}
	return "", fmt.Errorf("--scope %q: expected one of %s", scope, strings.Join(fl.Scopes(), ", "))
}

// installHooks describes the hook entries hook-loop installs.
type installHooks struct {
	// Binary is the absolute path of the hook-loop executable.
	Binary string
	// Config and Log are the --config and --event-log arguments, already in
	// shell form (see pathArg); "" leaves the flag out so that hook-loop
	// finds them from the project root.
	Config string
	Log    string
	// Matcher is the tool matcher of the tool events ("*" = every tool).
	Matcher string
	// Record makes every hook also keep its raw input in .hook-loop/trace.jsonl,
	// for hook-loop replay.
	Record bool
	// Store is cmdutil.StoreArg's " --store URL" (URL without its password), or "".
	Store string
	// Mode is the install's --mode, passed to every hook ("": the loop's).
	Mode string
	// Flavor is the harness (nil: Claude Code).
	Flavor *Flavor
}

func (h installHooks) flavor() *Flavor {
	if h.Flavor == nil {
		return Claude
	}
	return h.Flavor
}

// pathArg renders path for a hook command: relative to the project
// directory variable ($CLAUDE_PROJECT_DIR) when it lies inside projectDir and
// relToProject is set, else absolute; always shell-quoted (paths may hold
// spaces).
func (fl *Flavor) pathArg(path, projectDir string, relToProject bool) string {
	if relToProject && projectDir != "" {
		if rel, err := filepath.Rel(projectDir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return fl.projectDirVar() + "/" + scaffold.ShellQuote(filepath.ToSlash(rel))
		}
	}
	return scaffold.ShellQuote(path)
}

// Command returns the hook command for a native event.
func (h installHooks) Command(event string) string {
	parts := []string{scaffold.ShellQuote(h.Binary), h.flavor().Name + "-hook", "--event", event}
	if h.Config != "" {
		parts = append(parts, "--config", h.Config)
	}
	if h.Log != "" {
		parts = append(parts, "--event-log", h.Log)
	}
	if h.Record {
		parts = append(parts, "--record")
	}
	if h.Mode != "" {
		parts = append(parts, "--mode", h.Mode)
	}
	return strings.Join(parts, " ") + h.Store
}

// isHookCommand reports whether a settings.json hook command is one of
// hook-loop's: it runs the <name>-hook subcommand. Re-install and uninstall
// touch only these.
func (fl *Flavor) isHookCommand(cmd string) bool {
	for _, f := range strings.Fields(cmd) {
		if f == fl.Name+"-hook" {
			return true
		}
	}
	return false
}

// claudeProtectTools are the tools that write files or run commands: the loop's
// guardrails must see them whatever the DSL names.
var claudeProtectTools = []string{"Bash", "Edit", "MultiEdit", "NotebookEdit", "Write"}

// toolMatcher returns the smallest tool matcher that shows the loop every tool
// call it can act on: the tools its rules and policies name plus the tools that
// write (for the guardrails), or "*" when a rule or policy needs every tool
// (a tool rule without tool_name, a state policy with allow_tools).
func toolMatcher(spec *loopdsl.Spec) string {
	if spec == nil {
		return "*"
	}
	tools := slices.Clone(claudeProtectTools)
	for _, r := range spec.EventMap {
		switch r.CodexEvent {
		case loop.EventPreToolUse, loop.EventPermissionRequest, loop.EventPostToolUse:
			if r.When.ToolName == "" {
				return "*"
			}
			tools = append(tools, r.When.ToolName)
		}
	}
	for _, p := range spec.Definition.Policies {
		if len(p.AllowTools) > 0 {
			return "*"
		}
		tools = append(tools, p.DenyTools...)
	}
	for _, t := range tools {
		// A name Claude would read as a regex could match more or less than
		// meant; every tool is the safe answer.
		if strings.ContainsAny(t, `*.^$()[]{}?+\ `) {
			return "*"
		}
	}
	sort.Strings(tools)
	// Every MCP tool: its path arguments are judged like any write.
	return strings.Join(append(slices.Compact(tools), "mcp__.*"), "|")
}

// mergeSettings returns existing (a settings.json document, or empty) with
// hook-loop's hook entries for every handled event, keeping every other setting
// and every other hook (values and key order; whitespace is re-indented), and replacing hook-loop's own entries from
// an earlier install.
func mergeSettings(existing []byte, h installHooks) ([]byte, error) {
	fl := h.flavor()
	doc, err := claudeDoc(existing)
	if err != nil {
		return nil, err
	}
	doc, _, err = fl.removeHooks(doc)
	if err != nil {
		return nil, err
	}
	for _, ev := range fl.Events {
		group := claudeGroup{Hooks: []claudeCommandHook{{Type: "command", Command: h.Command(ev), Timeout: claudeHookTimeout}}}
		if fl.IsToolEvent(ev) && h.Matcher != "" {
			group.Matcher = h.Matcher
		}
		raw, err := json.Marshal(group)
		if err != nil {
			return nil, err
		}
		path := "hooks." + ev
		if arr := gjson.GetBytes(doc, path); arr.Exists() && !arr.IsArray() {
			return nil, fmt.Errorf("$.hooks.%s is not an array: expected a list of matcher groups", ev)
		}
		doc, err = sjson.SetRawBytes(doc, path+".-1", raw)
		if err != nil {
			return nil, fmt.Errorf("set $.%s: %w", path, err)
		}
	}
	return pretty(doc), nil
}

// claudeGroup is one matcher group of settings.json's hooks.<Event> list.
type claudeGroup struct {
	Matcher string              `json:"matcher,omitempty"`
	Hooks   []claudeCommandHook `json:"hooks"`
}

type claudeCommandHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// removeSettings removes hook-loop's hook entries from a settings.json
// document, dropping matcher groups and event lists that become empty. It
// returns the document and how many entries it removed.
func (fl *Flavor) removeSettings(existing []byte) ([]byte, int, error) {
	doc, err := claudeDoc(existing)
	if err != nil {
		return nil, 0, err
	}
	out, n, err := fl.removeHooks(doc)
	if err != nil || n == 0 {
		return existing, n, err
	}
	if hooks := gjson.GetBytes(out, "hooks"); hooks.IsObject() && len(hooks.Map()) == 0 {
		out, err = sjson.DeleteBytes(out, "hooks")
		if err != nil {
			return nil, 0, err
		}
	}
	return pretty(out), n, nil
}

// hookCommands returns hook-loop's hook commands in a settings document,
// keyed by event.
func (fl *Flavor) hookCommands(doc []byte) map[string][]string {
	out := map[string][]string{}
	gjson.GetBytes(doc, "hooks").ForEach(func(ev, groups gjson.Result) bool {
		groups.ForEach(func(_, g gjson.Result) bool {
			g.Get("hooks").ForEach(func(_, hk gjson.Result) bool {
				if c := hk.Get("command").String(); fl.isHookCommand(c) {
					out[ev.String()] = append(out[ev.String()], c)
				}
				return true
			})
			return true
		})
		return true
	})
	return out
}

func claudeDoc(existing []byte) ([]byte, error) {
	if len(bytes.TrimSpace(existing)) == 0 {
		return []byte("{}"), nil
	}
	if !gjson.ValidBytes(existing) {
		return nil, fmt.Errorf("not valid JSON: expected a settings object (fix or move the file, then re-run)")
	}
	if !gjson.ParseBytes(existing).IsObject() {
		return nil, fmt.Errorf("$ is not an object: expected a settings object")
	}
	if h := gjson.GetBytes(existing, "hooks"); h.Exists() && !h.IsObject() {
		return nil, fmt.Errorf("$.hooks is not an object: expected {\"EventName\": [matcher groups]}")
	}
	return slices.Clone(existing), nil
}

// removeHooks drops hook-loop's commands from every event list. Groups that
// hold other hooks keep them (only hook-loop's entries leave); groups left empty
// and event lists left empty are removed. Other groups keep their exact text.
func (fl *Flavor) removeHooks(doc []byte) ([]byte, int, error) {
	removed := 0
	var events []string
	gjson.GetBytes(doc, "hooks").ForEach(func(k, _ gjson.Result) bool {
		events = append(events, k.String())
		return true
	})
	for _, ev := range events {
		path := "hooks." + scaffold.GJSONEscape(ev)
		groups := gjson.GetBytes(doc, path)
		if !groups.IsArray() {
			continue
		}
		var kept []string
		changed := false
		for _, g := range groups.Array() {
			hooks := g.Get("hooks")
			if !hooks.IsArray() {
				kept = append(kept, g.Raw)
				continue
			}
			var keepHooks []string
			n := 0
			for _, hk := range hooks.Array() {
				if fl.isHookCommand(hk.Get("command").String()) {
					n++
					continue
				}
				keepHooks = append(keepHooks, hk.Raw)
			}
			if n == 0 {
				kept = append(kept, g.Raw)
				continue
			}
			removed += n
			changed = true
			if len(keepHooks) == 0 {
				continue
			}
			ng, err := sjson.SetRaw(g.Raw, "hooks", "["+strings.Join(keepHooks, ",")+"]")
			if err != nil {
				return nil, 0, err
			}
			kept = append(kept, ng)
		}
		if !changed {
			continue
		}
		var err error
		if len(kept) == 0 {
			doc, err = sjson.DeleteBytes(doc, path)
		} else {
			doc, err = sjson.SetRawBytes(doc, path, []byte("["+strings.Join(kept, ",")+"]"))
		}
		if err != nil {
			return nil, 0, fmt.Errorf("edit $.hooks.%s: %w", ev, err)
		}
	}
	return doc, removed, nil
}

// pretty re-indents the document (two spaces, as Claude Code writes its own
// settings): only insignificant whitespace changes; keys, order and values stay.
func pretty(doc []byte) []byte {
	var b bytes.Buffer
	if json.Indent(&b, bytes.TrimSpace(doc), "", "  ") != nil {
		return doc
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// hooksDisabled reports whether a settings document turns every hook off.
func hooksDisabled(doc []byte) bool {
	return gjson.GetBytes(doc, "disableAllHooks").Bool()
}

// writeSettings writes a settings document (see mergeSettings).
func writeSettings(path string, data []byte) error {
	if err := scaffold.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
