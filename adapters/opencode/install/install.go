package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/templates"
)

// opencodePluginMarker is in every plugin install renders; a file with it is ours
// to replace or remove.
const opencodePluginMarker = "hook-loop:managed-plugin"

// hookTimeoutMS bounds one hook-loop call from the plugin. It is above
// hookrun's own deadline so that hook-loop, not the plugin, decides on a slow
// lifecycle hook.
const hookTimeoutMS = 30000

const opencodeReinstall = "hook-loop opencode install --write"

// depsWarning is why a first opencode start in a project is slow or needs
// the network: opencode installs its plugin SDK next to every config dir.
const depsWarning = "opencode npm-installs @opencode-ai/plugin into .opencode/node_modules on its first start in this project " +
	"(about 12 s with the npm registry reachable; without it opencode retries for about 70 s, then starts anyway)"

// planOptions describe one opencode install or uninstall.
type planOptions struct {
	Profile     string // gallery loop written as hook-loop.json (default gallery.Default)
	DSLPath     string // a DSL file to copy instead of the profile
	Destination string // project directory (default ".")
	Binary      string // hook-loop executable the plugin runs ("" = os.Executable)
	HooksConfig string // lifecycle hooks declaration passed with --hooks-config ("" = the user's default)
	Record      bool   // the plugin passes --record: hooks keep each raw input in .hook-loop/trace.jsonl
	Store       string // the plugin passes --store: the loop's log in PostgreSQL (checked by cmdutil.SafeStoreURL)
	Mode        string // the plugin passes --mode ("": the loop's)
	Version     string // written into the plugin's header
	Purge       bool   // uninstall: also remove hook-loop.json and .hook-loop/
	State       string // --state: project or user (where the log lives)
	Getenv      func(string) string
}

// installPlan is what an opencode install or uninstall will do.
type installPlan struct {
	scaffold.Plan
	PluginPath string
}

// OpencodePluginData is the template data of templates/opencode/hook_loop.js.tmpl.
type OpencodePluginData struct {
	Version       string
	Bin           string
	Config        string
	EventLog      string
	HooksConfig   string
	Record        bool
	Store         string // the postgres:// URL without its password ("" = not set)
	Mode          string
	FailClosed    bool
	MaxStopBlocks int
	TimeoutMS     int
}

// RenderOpencodePlugin renders the plugin for these absolute paths.
func RenderOpencodePlugin(d OpencodePluginData) ([]byte, error) {
	if d.TimeoutMS <= 0 {
		d.TimeoutMS = hookTimeoutMS
	}
	if d.MaxStopBlocks <= 0 {
		d.MaxStopBlocks = loopdsl.DefaultMaxStopBlocks
	}
	if d.Version == "" {
		d.Version = "dev"
	}
	return templates.Render("opencode/hook_loop.js.tmpl", d)
}

// isPlugin reports whether a plugin file is hook-loop's: one install
// rendered, or the Python prototype's (which ran `hook-loop opencode-hook`).
func isPlugin(src []byte) bool {
	return bytes.Contains(src, []byte(opencodePluginMarker)) || bytes.Contains(src, []byte(`"opencode-hook"`))
}

func (o planOptions) resolve() (*installPlan, error) {
	plan, err := scaffold.NewPlan(o.Destination, o.Binary, o.State, o.Getenv)
	if err != nil {
		return nil, err
	}
	return &installPlan{Plan: plan, PluginPath: filepath.Join(plan.Dest, filepath.FromSlash(opencode.PluginRel))}, nil
}

// planInstall computes the install without touching anything: the loop
// file (unless one is there) and the plugin (replacing only hook-loop's own).
func planInstall(o planOptions) (*installPlan, error) {
	p, err := o.resolve()
	if err != nil {
		return nil, err
	}
	// The plugin's fallbacks (fail_closed, the stop cap) come from the loop that
	// will be in force: the existing file when it is kept.
	effective, err := p.PlanLoop(p.ConfigPath, o.DSLPath, o.Profile)
	if err != nil {
		return nil, err
	}
	failClosed, maxStops := loopKnobs(effective)
	gi, err := scaffold.GitignoreChange(p.Dest)
	if err != nil {
		return nil, err
	}
	if gi != nil {
		p.Changes = append(p.Changes, *gi)
	}

	store, note, err := cmdutil.SafeStoreURL(o.Store)
	if err != nil {
		return nil, err
	}
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	plugin, err := RenderOpencodePlugin(OpencodePluginData{Version: o.Version, Bin: p.Binary, Config: p.ConfigPath, EventLog: p.LogPath,
		HooksConfig: o.HooksConfig, Record: o.Record, Store: store, Mode: o.Mode, FailClosed: failClosed, MaxStopBlocks: maxStops})
	if err != nil {
		return nil, err
	}
	before, err := scaffold.ReadOptional(p.PluginPath)
	if err != nil {
		return nil, err
	}
	switch {
	case before != nil && !isPlugin(before):
		return nil, fmt.Errorf("%s exists and is not hook-loop's plugin: move it away (or rename it), then install again", p.PluginPath)
	case bytes.Equal(before, plugin):
		p.Notes = append(p.Notes, p.PluginPath+" is up to date")
	default:
		note := "hook-loop's opencode plugin"
		if before != nil {
			note += " (replaces the previous one)"
		}
		p.Changes = append(p.Changes, scaffold.Change{Path: p.PluginPath, Before: before, After: plugin, Note: note})
	}
	if !opencodeDepsPresent(p.Dest) {
		p.Notes = append(p.Notes, "warning: "+depsWarning)
	}
	return p, nil
}

// loopKnobs reads loop.fail_closed and the stop cap from a DSL document; a
// document that does not load gives the defaults.
func loopKnobs(dsl []byte) (failClosed bool, maxStopBlocks int) {
	var doc struct {
		Loop struct {
			FailClosed    bool `json:"fail_closed"`
			MaxStopBlocks int  `json:"max_stop_blocks"`
		} `json:"loop"`
	}
	_ = json.Unmarshal(dsl, &doc)
	maxStopBlocks = doc.Loop.MaxStopBlocks
	if maxStopBlocks <= 0 {
		maxStopBlocks = loopdsl.DefaultMaxStopBlocks
	}
	return doc.Loop.FailClosed, maxStopBlocks
}

func opencodeDepsPresent(dest string) bool {
	_, err := os.Stat(filepath.Join(dest, ".opencode", "node_modules", "@opencode-ai", "plugin"))
	return err == nil
}

// planUninstall computes the removal of hook-loop's plugin (never
// another file), and with Purge the loop file and the .hook-loop directory.
func planUninstall(o planOptions) (*installPlan, error) {
	p, err := o.resolve()
	if err != nil {
		return nil, err
	}
	before, err := p.UninstallFrom(p.PluginPath)
	if err != nil {
		return nil, err
	}
	switch {
	case before == nil:
		p.Notes = append(p.Notes, p.PluginPath+" does not exist: no plugin to remove")
	case !isPlugin(before):
		p.Notes = append(p.Notes, p.PluginPath+" is not hook-loop's plugin: left alone")
	default:
		p.Changes = append(p.Changes, scaffold.Change{Path: p.PluginPath, Before: before, Note: "hook-loop's opencode plugin"})
	}
	changes, notes := scaffold.Purge(o.Purge, p.ConfigPath, scaffold.StateDirs(p.Dest, p.LogPath, o.Getenv)...)
	p.Changes, p.Notes = append(p.Changes, changes...), append(p.Notes, notes...)
	if p.Changes, notes, err = scaffold.Tidy(p.Dest, p.Changes, true); err != nil {
		return nil, err
	}
	p.Notes = append(p.Notes, notes...)
	return p, nil
}

// pluginConst reads `const NAME = "..."` from a rendered plugin.
func pluginConst(src []byte, name string) (string, bool) {
	m := regexp.MustCompile(`(?m)^const ` + regexp.QuoteMeta(name) + ` = ("(?:[^"\\]|\\.)*")`).FindSubmatch(src)
	if m == nil {
		return "", false
	}
	var s string
	if json.Unmarshal(m[1], &s) != nil {
		return "", false
	}
	return s, true
}

// checkInstall is the doctor check for opencode: the plugin is there, is
// hook-loop's current one, and points at a binary and a loop that work.
func checkInstall(env *setup.DoctorEnv) []setup.Finding {
	var out setup.Findings
	path := filepath.Join(env.Dir, filepath.FromSlash(opencode.PluginRel))
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		out.Add(setup.LevelWarn, fmt.Sprintf("hook-loop is not installed for opencode (no %s)", path), opencodeReinstall)
		return out
	}
	if err != nil {
		out.Add(setup.LevelFail, fmt.Sprintf("cannot read %s: %v", path, err), "")
		return out
	}
	if !isPlugin(src) {
		out.Add(setup.LevelWarn, path+" is not hook-loop's plugin", "move it away, then run "+opencodeReinstall)
		return out
	}
	if !bytes.Contains(src, []byte(opencodePluginMarker)) {
		out.Add(setup.LevelFail, path+" is the prototype's plugin: it passed an empty stdin, blocked opencode's start and missed idle events",
			opencodeReinstall)
		return out
	}
	bin, okBin := pluginConst(src, "HOOK_LOOP")
	config, okCfg := pluginConst(src, "CONFIG")
	if log, ok := pluginConst(src, "EVENT_LOG"); ok {
		// opencode has no write sandbox of its own.
		out = append(out, setup.StateFinding([]string{"--event-log", log}, env.Dir, "", "hook-loop opencode install"))
	}
	if !okBin || !okCfg {
		out.Add(setup.LevelFail, path+" is damaged: cannot read HOOK_LOOP and CONFIG from it", opencodeReinstall)
		return out
	}
	out = append(out, setup.CheckBinary(path, bin, opencodeReinstall, "opencode"), setup.CheckLoop(config))
	if !opencodeDepsPresent(env.Dir) {
		out.Add(setup.LevelWarn, depsWarning, "start opencode once with the npm registry reachable (or accept the wait)")
	}
	return out
}
