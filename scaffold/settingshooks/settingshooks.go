// Package settingshooks edits the hooks of a JSON settings file in the shape
// Claude Code introduced and Gemini CLI shares: "hooks" maps an event name to
// a list of matcher groups, {"matcher": ..., "hooks": [{"type": "command",
// "command": ..., "timeout": ...}]}. Installs merge hook-loop's entries into
// it and uninstalls remove them, keeping every other setting and hook.
package settingshooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Spec is what one harness installs.
type Spec struct {
	// Events are the native events that get a hook, in the order written.
	Events []string
	// IsToolEvent reports whether an event's group takes Matcher.
	IsToolEvent func(event string) bool
	// Matcher is the tool events' matcher ("" = "*").
	Matcher string
	// Command is the hook command of an event.
	Command func(event string) string
	// Timeout is written as given: the harness's own unit (Claude Code's
	// seconds, Gemini CLI's milliseconds).
	Timeout int
	// Ours reports whether a command is one of hook-loop's (re-install and
	// uninstall touch only these).
	Ours func(cmd string) bool
}

// RunsSubcommand reports whether cmd runs sub (e.g. "claude-hook") as one of
// its words: how an install recognises its own hook commands.
func RunsSubcommand(cmd, sub string) bool {
	return slices.Contains(strings.Fields(cmd), sub)
}

type group struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []commandHook `json:"hooks"`
}

type commandHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// Merge returns existing (a settings document, or empty) with hook-loop's
// entries for every event of s, keeping every other setting and every other
// hook (values and key order; whitespace is re-indented) and replacing
// hook-loop's own entries from an earlier install.
func Merge(existing []byte, s Spec) ([]byte, error) {
	doc, err := Doc(existing)
	if err != nil {
		return nil, err
	}
	doc, _, err = removeOurs(doc, s.Ours)
	if err != nil {
		return nil, err
	}
	for _, ev := range s.Events {
		g := group{Hooks: []commandHook{{Type: "command", Command: s.Command(ev), Timeout: s.Timeout}}}
		if s.IsToolEvent != nil && s.IsToolEvent(ev) {
			g.Matcher = s.Matcher
			if g.Matcher == "" {
				g.Matcher = "*"
			}
		}
		raw, err := json.Marshal(g)
		if err != nil {
			return nil, err
		}
		path := "hooks." + scaffold.GJSONEscape(ev)
		if arr := gjson.GetBytes(doc, path); arr.Exists() && !arr.IsArray() {
			return nil, fmt.Errorf("$.hooks.%s is not an array: expected a list of matcher groups", ev)
		}
		doc, err = sjson.SetRawBytes(doc, path+".-1", raw)
		if err != nil {
			return nil, fmt.Errorf("set $.hooks.%s: %w", ev, err)
		}
	}
	return Pretty(doc), nil
}

// Remove removes hook-loop's entries (those ours recognises) from a settings
// document, dropping matcher groups and event lists that become empty. It
// returns the document and how many entries it removed.
func Remove(existing []byte, ours func(string) bool) ([]byte, int, error) {
	doc, err := Doc(existing)
	if err != nil {
		return nil, 0, err
	}
	out, n, err := removeOurs(doc, ours)
	if err != nil || n == 0 {
		return existing, n, err
	}
	if hooks := gjson.GetBytes(out, "hooks"); hooks.IsObject() && len(hooks.Map()) == 0 {
		out, err = sjson.DeleteBytes(out, "hooks")
		if err != nil {
			return nil, 0, err
		}
	}
	return Pretty(out), n, nil
}

// Commands returns hook-loop's hook commands in a settings document, keyed
// by event.
func Commands(doc []byte, ours func(string) bool) map[string][]string {
	out := map[string][]string{}
	gjson.GetBytes(doc, "hooks").ForEach(func(ev, groups gjson.Result) bool {
		groups.ForEach(func(_, g gjson.Result) bool {
			g.Get("hooks").ForEach(func(_, hk gjson.Result) bool {
				if c := hk.Get("command").String(); ours(c) {
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

// Matchers returns the matchers of the groups holding hook-loop's commands,
// keyed by event ("" for a group without one).
func Matchers(doc []byte, ours func(string) bool) map[string][]string {
	out := map[string][]string{}
	gjson.GetBytes(doc, "hooks").ForEach(func(ev, groups gjson.Result) bool {
		groups.ForEach(func(_, g gjson.Result) bool {
			g.Get("hooks").ForEach(func(_, hk gjson.Result) bool {
				if ours(hk.Get("command").String()) {
					out[ev.String()] = append(out[ev.String()], g.Get("matcher").String())
					return false
				}
				return true
			})
			return true
		})
		return true
	})
	return out
}

// Unmatched returns the tools of want that matcher does not show its hooks,
// read as Claude Code and Gemini CLI read one: "" and "*" match every tool,
// names joined by "|" match those names exactly, anything else is a regular
// expression tested against the tool's name (one that does not compile
// matches nothing).
func Unmatched(matcher string, want []string) []string {
	if matcher == "" || matcher == "*" {
		return nil
	}
	match := func(t string) bool { return slices.Contains(strings.Split(matcher, "|"), t) }
	if strings.ContainsFunc(matcher, func(r rune) bool {
		return !(r == '|' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		re, err := regexp.Compile(matcher)
		match = func(t string) bool { return err == nil && re.MatchString(t) }
	}
	var out []string
	for _, t := range want {
		if !match(t) {
			out = append(out, t)
		}
	}
	return out
}

// Names are the tool names a matcher an install wrote stands for: its
// alternatives, with ^(...)$ taken off and a wildcard (".*") given a name
// it matches, so that Unmatched can test another matcher against them.
func Names(matcher string) []string {
	m := strings.TrimSuffix(strings.TrimPrefix(matcher, "^("), ")$")
	if m == "" || m == "*" {
		return nil
	}
	var out []string
	for _, alt := range strings.Split(m, "|") {
		out = append(out, strings.ReplaceAll(alt, ".*", "x"))
	}
	return out
}

// Doc checks a settings document ("{}" for an empty one): an object whose
// hooks, when present, is an object.
func Doc(existing []byte) ([]byte, error) {
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

// removeOurs drops hook-loop's commands from every event list. Groups that
// hold other hooks keep them (only hook-loop's entries leave); groups left
// empty and event lists left empty are removed. Other groups keep their exact
// text.
func removeOurs(doc []byte, ours func(string) bool) ([]byte, int, error) {
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
				if ours(hk.Get("command").String()) {
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

// Pretty re-indents the document (two spaces, as Claude Code and Gemini CLI
// write their settings): only insignificant whitespace changes; keys, order
// and values stay.
func Pretty(doc []byte) []byte {
	var b bytes.Buffer
	if json.Indent(&b, bytes.TrimSpace(doc), "", "  ") != nil {
		return doc
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// Hook is the hook command an install writes for every event.
type Hook struct {
	// Binary is the absolute path of the hook-loop executable.
	Binary string
	// Subcommand is the harness's hook command, e.g. "gemini-hook".
	Subcommand string
	// Config and Log are the --config and --event-log arguments, already in
	// shell form (see PathArg); "" leaves the flag out so that hook-loop finds
	// them from the project root.
	Config, Log string
	// Record makes every hook also keep its raw input in .hook-loop/trace.jsonl,
	// for hook-loop replay.
	Record bool
	// Store is cmdutil.StoreArg's " --store URL" (URL without its password), or "".
	Store string
	// Mode is the install's --mode, passed to every hook ("": the loop's).
	Mode string
	// State is "user" when user-wide hooks keep each project's log in the
	// user's state directory (--state user), else "".
	State string
}

// Command returns the hook command for a native event.
func (h Hook) Command(event string) string {
	parts := []string{scaffold.ShellQuote(h.Binary), h.Subcommand, "--event", event}
	if h.Config != "" {
		parts = append(parts, "--config", h.Config)
	}
	if h.Log != "" {
		parts = append(parts, "--event-log", h.Log)
	}
	if h.State != "" {
		parts = append(parts, "--state", h.State)
	}
	if h.Record {
		parts = append(parts, "--record")
	}
	if h.Mode != "" {
		parts = append(parts, "--mode", h.Mode)
	}
	return strings.Join(parts, " ") + h.Store
}

// PathArg renders path for a hook command: as dirVar (the harness's project
// directory, in the form its hooks expand it) followed by the shell-quoted
// relative path when path lies inside projectDir and dirVar is set, so the
// settings file stays valid in every checkout; else absolute and quoted.
func PathArg(path, projectDir, dirVar string) string {
	if dirVar != "" && projectDir != "" {
		if rel, err := filepath.Rel(projectDir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return dirVar + "/" + scaffold.ShellQuote(filepath.ToSlash(rel))
		}
	}
	return scaffold.ShellQuote(path)
}
