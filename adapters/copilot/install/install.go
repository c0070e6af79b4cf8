// Package install installs hook-loop into GitHub Copilot CLI (a hook file of
// its own in .github/hooks or ~/.copilot/hooks) and checks the installation;
// the adapter the hooks run is the parent package's.
package install

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/copilot"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"github.com/urfave/cli/v2"
)

// FileName is hook-loop's hook file; Copilot CLI reads every *.json in a
// hooks folder, so the person's own files stay untouched beside it.
const FileName = "hook-loop.json"

// hookTimeout (seconds) is longer than hook-loop's own deadline, so Copilot
// never kills hook-loop mid-append; hook-loop answers first.
const hookTimeout = 30

const (
	scopeProject = "project" // <project>/.github/hooks/hook-loop.json, shared with the team
	scopeUser    = "user"    // $COPILOT_HOME/hooks (~/.copilot/hooks)/hook-loop.json, every project
)

// HookFile returns the hook file of scope.
func HookFile(scope, projectDir, home string, getenv func(string) string) (string, error) {
	switch scope {
	case scopeProject, "":
		return filepath.Join(projectDir, ".github", "hooks", FileName), nil
	case scopeUser:
		d := copilot.UserHooksDir(home, getenv)
		if d == "" {
			return "", fmt.Errorf("--scope user: no home directory (set HOME or COPILOT_HOME)")
		}
		return filepath.Join(d, FileName), nil
	}
	return "", fmt.Errorf("--scope %q: expected project or user", scope)
}

// hooks are the hook entries install writes.
type hooks struct {
	Binary string
	// Config and Log are --config and --event-log in shell form; "" leaves
	// the flag out (the hook finds them from the project root).
	Config, Log, Mode, Store string
	// State is "user" when user-wide hooks keep each project's log in the
	// user's state directory, else "".
	State  string
	Record bool
}

// Command is the hook command for a native event.
func (h hooks) Command(event string) string {
	return settingshooks.Hook{Binary: h.Binary, Subcommand: "copilot-hook", Config: h.Config, Log: h.Log,
		Record: h.Record, Store: h.Store, Mode: h.Mode, State: h.State}.Command(event)
}

// projectArg renders a path inside projectDir relative to
// $COPILOT_PROJECT_DIR, so the file holds in every checkout; else absolute.
func projectArg(path, projectDir string) string {
	return settingshooks.PathArg(path, projectDir, `"$`+copilot.ProjectDirVar+`"`)
}

// isOurs reports whether a hook entry's command runs copilot-hook.
func isOurs(entry gjson.Result) bool {
	for _, k := range []string{"bash", "command"} {
		for _, f := range strings.Fields(entry.Get(k).String()) {
			if f == "copilot-hook" {
				return true
			}
		}
	}
	return false
}

// entry is one hook of a Copilot hook file.
type entry struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	TimeoutSec int    `json:"timeoutSec"`
}

// parse checks a hook file document (empty: a new one).
func parse(existing []byte) ([]byte, error) {
	if len(bytes.TrimSpace(existing)) == 0 {
		return []byte(`{"version":1}`), nil
	}
	if !gjson.ValidBytes(existing) || !gjson.ParseBytes(existing).IsObject() {
		return nil, fmt.Errorf("not a JSON object: expected {\"version\": 1, \"hooks\": {...}} (fix or move the file, then re-run)")
	}
	if h := gjson.GetBytes(existing, "hooks"); h.Exists() && !h.IsObject() {
		return nil, fmt.Errorf("$.hooks is not an object: expected {\"eventName\": [hooks]}")
	}
	return bytes.Clone(existing), nil
}

// strip removes hook-loop's entries from every event list, dropping lists
// left empty; other entries keep their text. It returns how many went.
func strip(doc []byte) ([]byte, int, error) {
	n := 0
	var err error
	gjson.GetBytes(doc, "hooks").ForEach(func(ev, list gjson.Result) bool {
		if !list.IsArray() {
			return true
		}
		var kept []string
		for _, e := range list.Array() {
			if isOurs(e) {
				n++
			} else {
				kept = append(kept, e.Raw)
			}
		}
		if len(kept) == len(list.Array()) {
			return true
		}
		path := "hooks." + scaffold.GJSONEscape(ev.Str)
		if len(kept) == 0 {
			doc, err = sjson.DeleteBytes(doc, path)
		} else {
			doc, err = sjson.SetRawBytes(doc, path, []byte("["+strings.Join(kept, ",")+"]"))
		}
		return err == nil
	})
	return doc, n, err
}

// merge returns existing with hook-loop's entry for every handled event,
// replacing its entries from an earlier install and keeping everything else.
func merge(existing []byte, h hooks) ([]byte, error) {
	doc, err := parse(existing)
	if err != nil {
		return nil, err
	}
	if doc, _, err = strip(doc); err != nil {
		return nil, err
	}
	for _, ev := range copilot.NativeEvents {
		path := "hooks." + ev
		if l := gjson.GetBytes(doc, path); l.Exists() && !l.IsArray() {
			return nil, fmt.Errorf("$.hooks.%s is not an array: expected a list of hooks", ev)
		}
		raw, err := json.Marshal(entry{Type: "command", Bash: h.Command(ev), TimeoutSec: hookTimeout})
		if err != nil {
			return nil, err
		}
		if doc, err = sjson.SetRawBytes(doc, path+".-1", raw); err != nil {
			return nil, fmt.Errorf("set $.%s: %w", path, err)
		}
	}
	return indent(doc), nil
}

// commands are hook-loop's commands in a hook file, by event.
func commands(doc []byte) map[string][]string {
	out := map[string][]string{}
	gjson.GetBytes(doc, "hooks").ForEach(func(ev, list gjson.Result) bool {
		list.ForEach(func(_, e gjson.Result) bool {
			if isOurs(e) {
				out[ev.Str] = append(out[ev.Str], e.Get("bash").String())
			}
			return true
		})
		return true
	})
	return out
}

func indent(doc []byte) []byte {
	var b bytes.Buffer
	if json.Indent(&b, bytes.TrimSpace(doc), "", "  ") != nil {
		return doc
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// NewCmd builds the `copilot` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	const scopeUsage = "hook file: project (.github/hooks/" + FileName + ") or user ($COPILOT_HOME/hooks, default ~/.copilot/hooks)"
	return cmdutil.NewHarnessCmd(f, copilot.Name, "install hook-loop into GitHub Copilot CLI's hooks, or remove it",
		cmdutil.InstallCmd[*cmdutil.Common]{
			Name:       "install",
			Usage:      "write hook-loop's hook file for GitHub Copilot CLI (merged with hook-loop's earlier one)",
			UsageText:  "hook-loop copilot install [--scope project|user] [--dsl FILE | --profile NAME] [--destination DIR] [--record] [--mode MODE] [--write]",
			ScopeUsage: scopeUsage,
			DSLUsage:   "loop file the hooks use (default: hook-loop.json in the project)",
			Run:        runInstall,
		},
		cmdutil.InstallCmd[*cmdutil.Common]{
			Name:       "uninstall",
			Usage:      "remove hook-loop's hooks (and only those) from GitHub Copilot CLI's hook folder",
			UsageText:  "hook-loop copilot uninstall [--scope project|user] [--destination DIR] [--write] [--purge]",
			ScopeUsage: scopeUsage,
			Purge:      true,
			Run:        runUninstall,
		})
}

func target(o *cmdutil.Common) (projectDir, file string, err error) {
	if projectDir, err = cmdutil.ProjectDir(o.WorkDir, o.Destination); err != nil {
		return "", "", err
	}
	file, err = HookFile(o.Scope, projectDir, o.UserHome(), o.Getenv)
	return projectDir, file, err
}

func runInstall(ctx context.Context, o *cmdutil.Common) error {
	const cmd = "copilot install"
	projectDir, file, err := target(o)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	l, err := o.ResolveMergeLoop(cmd, projectDir)
	if err != nil {
		return err
	}
	h := hooks{Binary: l.Binary, Record: o.Record, Store: cmdutil.StoreArgOf(l.Store), Mode: o.Mode, State: l.State}
	h.Config, h.Log = l.HookPaths(func(p string) string { return projectArg(p, projectDir) })
	if err := o.MergeInstall(cmd, projectDir, l, file,
		func(old []byte) ([]byte, error) { return merge(old, h) },
		func(merged []byte) string { return fmt.Sprintf(": hooks for %d events", len(commands(merged))) }); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "hook command: %s\n", h.Command("<event>"))
	return nil
}

func runUninstall(ctx context.Context, o *cmdutil.Common) error {
	const cmd = "copilot uninstall"
	projectDir, file, err := target(o)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return o.MergeUninstall(cmd, projectDir, file, remove)
}

// remove is the hook file without hook-loop's hooks: nil (the file goes)
// when it held only those, so the person's additions are all that stays.
func remove(old []byte) ([]byte, int, error) {
	doc, err := parse(old)
	if err != nil {
		return nil, 0, err
	}
	doc, n, err := strip(doc)
	if err != nil || n == 0 || !keepsMore(doc) {
		return nil, n, err
	}
	return indent(doc), n, nil
}

// keepsMore reports whether a hook file holds more than a version and an
// empty hooks object.
func keepsMore(doc []byte) bool {
	more := false
	gjson.ParseBytes(doc).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "version":
		case "hooks":
			more = more || len(v.Map()) > 0
		default:
			more = true
		}
		return !more
	})
	return more
}
