package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Codex install targets.
const (
	targetProject   = "project"   // <dest>/.codex/hooks.json (needs a trusted project)
	targetUser      = "user"      // $CODEX_HOME/hooks.json (every project)
	targetDirectory = "directory" // <dest>/.codex/hooks.json, for a directory that is not a git checkout
)

// CodexTargets lists the valid --target values.
var CodexTargets = []string{targetProject, targetUser, targetDirectory}

// codexHookMarker is in every hooks.json command hook-loop writes, so that
// re-install and uninstall recognise their own entries and touch nothing else.
const codexHookMarker = " codex-hook "

// codexEvents are the events hook-loop installs for, with their timeout: every
// native event but SubagentStart and Interrupt, which no rule can name.
// SessionEnd is clamped by Codex to 3 s (with a warning) so it asks for 3.
var codexEvents = installedEvents()

type installedEvent struct {
	Name    string
	Timeout int
}

func installedEvents() []installedEvent {
	var out []installedEvent
	for _, n := range codex.NativeEvents {
		switch n {
		case "SubagentStart", "Interrupt":
			continue
		case "SessionEnd":
			out = append(out, installedEvent{n, 3})
		default:
			out = append(out, installedEvent{n, 30})
		}
	}
	return out
}

// isHookCommand reports whether a hooks.json command is hook-loop's.
func isHookCommand(cmd string) bool { return strings.Contains(cmd+" ", codexHookMarker) }

// CodexHome resolves Codex's home: the explicit dir, else $CODEX_HOME, else
// ~/.codex.
func CodexHome(explicit string) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find Codex home: %w (give --codex-home)", err)
	}
	return filepath.Join(home, ".codex"), nil
}

// planOptions describe one install or uninstall.
type planOptions struct {
	Profile     string // gallery loop written as hook-loop.json (default gallery.Default)
	DSLPath     string // a DSL file to copy instead of the profile
	Target      string // project | user | directory
	Destination string // project directory (default ".")
	CodexHome   string // "" = $CODEX_HOME or ~/.codex
	Binary      string // hook-loop executable written into the hooks ("" = os.Executable)
	Purge       bool   // uninstall: also remove hook-loop.json and .hook-loop/
	Record      bool   // hooks also keep each raw input in .hook-loop/trace.jsonl (for replay)
	State       string // --state: project or user (where the log lives)
	Getenv      func(string) string
	Store       string // hooks keep the log in PostgreSQL at this URL (written without its password)
	Mode        string // --mode passed to every hook ("": the loop's)
}

// installPlan is what an install or uninstall will do. Build it with
// planInstall / planUninstall, show it with Render, run it with Apply.
type installPlan struct {
	Target string
	scaffold.Plan
	HooksPath   string // the hooks.json written
	CodexHome   string
	OurCommands []string // the commands install writes (or uninstall removes)
}

func (o *planOptions) resolve() (*installPlan, error) {
	target := o.Target
	if target == "" {
		target = targetProject
	}
	valid := false
	for _, t := range CodexTargets {
		valid = valid || t == target
	}
	if target == "local" {
		return nil, fmt.Errorf("--scope local: Codex reads no per-person project file (.codex/hooks.json is shared); expected one of %s", strings.Join(CodexTargets, ", "))
	}
	if !valid {
		return nil, fmt.Errorf("--scope %q: expected one of %s", target, strings.Join(CodexTargets, ", "))
	}
	plan, err := scaffold.NewPlan(o.Destination, o.Binary, o.State, o.Getenv)
	if err != nil {
		return nil, err
	}
	home, err := CodexHome(o.CodexHome)
	if err != nil {
		return nil, err
	}
	p := &installPlan{Target: target, Plan: plan, CodexHome: home}
	if target == targetUser {
		p.HooksPath = filepath.Join(home, "hooks.json")
	} else {
		p.HooksPath = filepath.Join(plan.Dest, ".codex", "hooks.json")
	}
	return p, nil
}

// hookCommand is the hooks.json command for one event. Every path is
// absolute and quoted: the hook runs under /bin/bash -c in whatever directory
// Codex is in, without hook-loop on PATH, and paths may contain spaces.
func hookCommand(binary, event, config, log string) string {
	return strings.Join([]string{scaffold.ShellQuote(binary), "codex-hook", "--event", event,
		"--config", scaffold.ShellQuote(config), "--event-log", scaffold.ShellQuote(log)}, " ")
}

// hookFlags are the trailing flags of every hook command.
type hookFlags struct {
	record bool
	store  string // cmdutil.StoreArg's " --store URL", or ""
	mode   string // --mode ("": the loop's)
}

func codexCommand(binary, event, config, log string, f hookFlags) string {
	c := hookCommand(binary, event, config, log)
	if f.record {
		c += " --record"
	}
	if f.mode != "" {
		c += " --mode " + f.mode
	}
	return c + f.store
}

// planInstall computes the install without touching anything.
func planInstall(o planOptions) (*installPlan, error) {
	p, err := o.resolve()
	if err != nil {
		return nil, err
	}
	if _, err := p.PlanLoop(p.ConfigPath, o.DSLPath, o.Profile); err != nil {
		return nil, err
	}

	before, err := scaffold.ReadOptional(p.HooksPath)
	if err != nil {
		return nil, err
	}
	store, note, err := cmdutil.StoreArg(o.Store)
	if err != nil {
		return nil, err
	}
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	if o.Binary == "" {
		// An explicit --binary is written as given.
		var why string
		if p.Binary, _, why = scaffold.HookBinary(p.Binary, store, o.Getenv); why != "" {
			p.Notes = append(p.Notes, why)
		}
	}
	flags := hookFlags{record: o.Record, store: store, mode: o.Mode}
	after, err := mergeCodexHooks(before, p.Binary, p.ConfigPath, p.LogPath, flags)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.HooksPath, err)
	}
	for _, e := range codexEvents {
		p.OurCommands = append(p.OurCommands, codexCommand(p.Binary, e.Name, p.ConfigPath, p.LogPath, flags))
	}
	if !bytes.Equal(before, after) {
		p.Changes = append(p.Changes, scaffold.Change{Path: p.HooksPath, Before: before, After: after, Note: "hook-loop's Codex hooks"})
	} else {
		p.Notes = append(p.Notes, p.HooksPath+" already holds these hooks")
	}
	if p.Target != targetUser {
		gi, err := scaffold.GitignoreChange(p.Dest)
		if err != nil {
			return nil, err
		}
		if gi != nil {
			p.Changes = append(p.Changes, *gi)
		}
		if _, err := os.Stat(filepath.Join(p.Dest, ".git")); err != nil {
			p.Notes = append(p.Notes, fmt.Sprintf("note: %s is not a git checkout; Codex treats the directory it runs in as the project, so run codex there", p.Dest))
		}
	}
	return p, nil
}

// MergeCodexHooks adds hook-loop's hooks to a hooks.json document (nil = none
// yet), keeping every hook that is not hook-loop's and replacing hook-loop's own.
// Foreign entries, other keys and their order are kept; only whitespace is
// normalised.
func MergeCodexHooks(existing []byte, binary, config, log string) ([]byte, error) {
	return mergeCodexHooks(existing, binary, config, log, hookFlags{})
}

func mergeCodexHooks(existing []byte, binary, config, log string, flags hookFlags) ([]byte, error) {
	doc, _, err := removeCodexHooks(existing)
	if err != nil {
		return nil, err
	}
	for _, e := range codexEvents {
		type handler struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		}
		group := struct {
			Hooks []handler `json:"hooks"`
		}{[]handler{{"command", codexCommand(binary, e.Name, config, log, flags), e.Timeout}}}
		raw, _ := json.Marshal(group)
		path := "hooks." + e.Name + ".-1"
		if doc, err = sjson.SetRawBytes(doc, path, raw); err != nil {
			return nil, fmt.Errorf("edit $.hooks.%s: %w", e.Name, err)
		}
	}
	return codexPretty(doc), nil
}

// RemoveCodexHooks removes hook-loop's hooks from a hooks.json document and
// reports how many handlers it removed. Groups left empty are removed, and so
// are event lists left empty.
func RemoveCodexHooks(existing []byte) ([]byte, int, error) {
	doc, n, err := removeCodexHooks(existing)
	if err != nil {
		return nil, 0, err
	}
	return codexPretty(doc), n, nil
}

func removeCodexHooks(existing []byte) ([]byte, int, error) {
	doc := existing
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte(`{"hooks":{}}`)
	}
	if !gjson.ValidBytes(doc) {
		return nil, 0, fmt.Errorf("$: invalid JSON; expected {\"hooks\": {...}}")
	}
	root := gjson.ParseBytes(doc)
	if !root.IsObject() {
		return nil, 0, fmt.Errorf("$: expected an object, got %s", root.Type)
	}
	hooks := root.Get("hooks")
	if !hooks.Exists() {
		var err error
		if doc, err = sjson.SetRawBytes(doc, "hooks", []byte("{}")); err != nil {
			return nil, 0, err
		}
		return doc, 0, nil
	}
	if !hooks.IsObject() {
		return nil, 0, fmt.Errorf("$.hooks: expected an object mapping event names to lists")
	}
	removed := 0
	var err error
	hooks.ForEach(func(k, v gjson.Result) bool {
		if !v.IsArray() {
			return true
		}
		var kept []string
		changed := false
		for gi, g := range v.Array() {
			hs := g.Get("hooks")
			if !hs.IsArray() {
				kept = append(kept, g.Raw)
				continue
			}
			var keepH []string
			for _, h := range hs.Array() {
				if isHookCommand(h.Get("command").String()) {
					removed++
					changed = true
					continue
				}
				keepH = append(keepH, h.Raw)
			}
			if len(keepH) == len(hs.Array()) {
				kept = append(kept, g.Raw)
				continue
			}
			if len(keepH) == 0 {
				continue
			}
			ng, e := sjson.SetRaw(g.Raw, "hooks", "["+strings.Join(keepH, ",")+"]")
			if e != nil {
				err = fmt.Errorf("edit $.hooks.%s[%d]: %w", k.Str, gi, e)
				return false
			}
			kept = append(kept, ng)
		}
		if !changed {
			return true
		}
		path := "hooks." + scaffold.GJSONEscape(k.Str)
		if len(kept) == 0 {
			doc, err = sjson.DeleteBytes(doc, path)
		} else {
			doc, err = sjson.SetRawBytes(doc, path, []byte("["+strings.Join(kept, ",")+"]"))
		}
		return err == nil
	})
	if err != nil {
		return nil, 0, err
	}
	return doc, removed, nil
}

// hookCommands lists hook-loop's commands in a hooks.json document, by event.
func hookCommands(doc []byte) map[string][]string {
	out := map[string][]string{}
	gjson.GetBytes(doc, "hooks").ForEach(func(k, v gjson.Result) bool {
		v.ForEach(func(_, g gjson.Result) bool {
			g.Get("hooks").ForEach(func(_, h gjson.Result) bool {
				if c := h.Get("command").String(); isHookCommand(c) {
					out[k.Str] = append(out[k.Str], c)
				}
				return true
			})
			return true
		})
		return true
	})
	return out
}

func codexPretty(doc []byte) []byte {
	var b bytes.Buffer
	// Indent keeps trailing whitespace: trim it, or each re-install adds a line.
	if json.Indent(&b, bytes.TrimSpace(doc), "", "  ") != nil {
		return doc
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// planUninstall computes the removal of what install added: hook-loop's
// hooks (a hooks.json left with no hook at all is removed), and with Purge the
// loop file and the .hook-loop directory.
func planUninstall(o planOptions) (*installPlan, error) {
	p, err := o.resolve()
	if err != nil {
		return nil, err
	}
	before, err := p.UninstallFrom(p.HooksPath)
	if err != nil {
		return nil, err
	}
	if before == nil {
		p.Notes = append(p.Notes, p.HooksPath+" does not exist: no hooks to remove")
	} else {
		for _, cs := range hookCommands(before) {
			p.OurCommands = append(p.OurCommands, cs...)
		}
		after, n, err := RemoveCodexHooks(before)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.HooksPath, err)
		}
		if n == 0 {
			p.Notes = append(p.Notes, p.HooksPath+" holds no hook-loop hook")
		} else {
			note := fmt.Sprintf("remove %d hook-loop hook(s)", n)
			if isEmptyHooksDoc(after) {
				after = nil
				note += "; nothing else is left, so the file goes"
			}
			p.Changes = append(p.Changes, scaffold.Change{Path: p.HooksPath, Before: before, After: after, Note: note})
		}
	}
	changes, notes := scaffold.Purge(o.Purge, p.ConfigPath, scaffold.StateDirs(p.Dest, p.LogPath, o.Getenv)...)
	p.Changes, p.Notes = append(p.Changes, changes...), append(p.Notes, notes...)
	if p.Changes, notes, err = scaffold.Tidy(p.Dest, p.Changes, p.Target != targetUser); err != nil {
		return nil, err
	}
	p.Notes = append(p.Notes, notes...)
	return p, nil
}

func isEmptyHooksDoc(doc []byte) bool {
	root := gjson.ParseBytes(doc)
	n := 0
	root.ForEach(func(k, v gjson.Result) bool {
		if k.Str != "hooks" || !(v.IsObject() && len(v.Map()) == 0) {
			n++
		}
		return true
	})
	return n == 0
}

// untrusts is how many hook-loop hooks an earlier install --trust made Codex
// trust that this plan would change: Codex trusts a hook by the hash of its
// entry, so a changed entry is skipped until trusted again. 0 when the hooks
// file is unchanged or nothing was trusted.
func (p *installPlan) untrusts() int {
	rec, err := readRecord(p.Dest)
	if err != nil || !samePath(rec.HooksPath, p.HooksPath) {
		return 0
	}
	for _, c := range p.Changes {
		if c.Path == p.HooksPath {
			return len(rec.TrustedKeys)
		}
	}
	return 0
}
