package setup

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/version"
)

// Findings collects one harness's doctor findings.
type Findings []Finding

// Add appends a finding.
func (fs *Findings) Add(l Level, what, fix string) {
	*fs = append(*fs, Finding{Level: l, What: what, Fix: fix})
}

// UserHome is env.Home, else the process user's home ("" when unknown).
func (env *DoctorEnv) UserHome() string {
	if env.Home != "" {
		return env.Home
	}
	home, _ := os.UserHomeDir()
	return home
}

// CheckBinary is the doctor's check that the hook-loop binary bin, which the
// harness file file runs, is an absolute path to an executable; reinstall is
// the harness's install command, harness its display name.
func CheckBinary(file, bin, reinstall, harness string) Finding {
	f := Finding{Level: LevelFail}
	switch st, err := os.Stat(bin); {
	case !filepath.IsAbs(bin):
		f.What = fmt.Sprintf("%s runs %q by bare name: the hook's environment may not have it on PATH", file, bin)
		f.Fix = reinstall + " (writes the absolute path of the binary)"
	case err != nil:
		f.What = fmt.Sprintf("%s runs %s, which does not exist", file, bin)
		f.Fix = reinstall + " (with the hook-loop binary you want " + harness + " to run)"
	case st.IsDir() || st.Mode().Perm()&0o111 == 0:
		f.What = fmt.Sprintf("%s runs %s, which is not executable", file, bin)
		f.Fix = "chmod +x " + scaffold.ShellQuote(bin) + ", or " + reinstall
	case filepath.Base(bin) == scaffold.LeanName:
		f = checkLean(file, bin, reinstall)
	default:
		f = Finding{Level: LevelOK, What: "hook binary " + bin + " is executable"}
	}
	return f
}

// checkLean checks the lean hook binary a harness runs: of this hook-loop's
// build (a stale one answers with older rules) and with hook-loop beside it,
// which it hands database stores, lifecycle hooks and every other command.
func checkLean(file, bin, reinstall string) Finding {
	full := filepath.Join(filepath.Dir(bin), "hook-loop")
	if _, err := os.Stat(full); err != nil {
		return Finding{Level: LevelWarn, What: fmt.Sprintf("%s runs %s, and there is no hook-loop beside it: hooks that need a database store or lifecycle hooks will fail", file, bin),
			Fix: "install hook-loop and hook-loop-hook into one folder from one build (README: the install line), then " + reinstall}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--build").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != version.Build() {
		return Finding{Level: LevelWarn, What: fmt.Sprintf("%s runs %s, which is not of this hook-loop's build (%q, this one %q)", file, bin, got, version.Build()),
			Fix: "install hook-loop and hook-loop-hook from one build (README: the install line), then " + reinstall}
	}
	return Finding{Level: LevelOK, What: "hook binary " + bin + " (the lean hook binary) is executable and of this build"}
}

// CheckLoop is the doctor's check that the loop file path the hooks use loads
// without a validation error.
func CheckLoop(path string) Finding {
	fix := "hook-loop validate " + scaffold.ShellQuote(path) + " and fix what it reports"
	_, diags, err := loopdsl.Load(path)
	if err != nil {
		return Finding{Level: LevelFail, What: fmt.Sprintf("the loop file %s does not load: %s", path, strings.Join(strings.Fields(err.Error()), " ")), Fix: fix}
	}
	n := 0
	for _, d := range diags {
		if d.Severity == loopdsl.SeverityError {
			n++
		}
	}
	if n > 0 {
		return Finding{Level: LevelFail, What: fmt.Sprintf("the loop file %s has %d validation error(s)", path, n), Fix: fix}
	}
	return Finding{Level: LevelOK, What: "the loop file " + path + " is valid"}
}

// Events are the events of a settings file's hook commands, sorted.
func Events(cmds map[string][]string) []string {
	events := make([]string, 0, len(cmds))
	for e := range cmds {
		events = append(events, e)
	}
	sort.Strings(events)
	return events
}

// CommandChecks check the hook-loop commands of a harness's settings files:
// each parses, and its binary and loop file (each once over all files) work.
type CommandChecks struct {
	Dir       string // the project: a loop file's default and relative base
	Reinstall string // the harness's install command
	Harness   string // the harness's display name
	// Expand rewrites a command as the harness's shell will see it (nil: as written).
	Expand func(string) string
	// WarnRelative warns of a relative --config, which resolves against
	// wherever the harness runs the hook.
	WarnRelative bool

	bins, loops map[string]bool
}

// Check adds the findings for file's commands (event -> commands) to out.
func (c *CommandChecks) Check(out *Findings, file string, cmds map[string][]string) {
	if c.bins == nil {
		c.bins, c.loops = map[string]bool{}, map[string]bool{}
	}
	for _, e := range Events(cmds) {
		for _, cmd := range cmds[e] {
			words := cmd
			if c.Expand != nil {
				words = c.Expand(cmd)
			}
			args := shell.Words(words)
			if len(args) == 0 {
				out.Add(LevelFail, fmt.Sprintf("%s: the %s hook command cannot be parsed: %s", file, e, cmd), c.Reinstall)
				continue
			}
			if bin := args[0]; !c.bins[bin] {
				c.bins[bin] = true
				*out = append(*out, CheckBinary(file, bin, c.Reinstall, c.Harness))
			}
			dsl := scaffold.FlagValue(args, "--config")
			if dsl == "" {
				dsl = filepath.Join(c.Dir, "hook-loop.json")
			} else if !filepath.IsAbs(dsl) {
				if c.WarnRelative {
					out.Add(LevelWarn, fmt.Sprintf("%s: the %s hook names a relative --config %s, resolved against the directory %s runs in", file, e, dsl, c.Harness), c.Reinstall+" (writes absolute paths)")
				}
				dsl = filepath.Join(c.Dir, dsl)
			}
			if !c.loops[dsl] {
				c.loops[dsl] = true
				*out = append(*out, CheckLoop(dsl))
			}
		}
	}
}
