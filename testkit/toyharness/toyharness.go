// Package toyharness is a throwaway harness, for tests only: everything a
// harness is (adapter, install, doctor, owned files) in one folder, to show
// that the CLI, doctor and the engine's protected files pick up a new harness
// from the registry's list alone.
//
// Its hook input is {"event","session","command"}; its answer is one line
// "<action>:<reason>"; install writes .toy/hooks.json.
package toyharness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

// Harness is the toy harness for a test's registry.
var Harness setup.Harness = toy{}

// HooksFile is the file install writes, relative to the project.
const HooksFile = ".toy/hooks.json"

type toy struct{}

func (toy) Name() string                { return "toy" }
func (toy) NewAdapter() harness.Adapter { return toy{} }
func (toy) NativeEvents() []string {
	return []string{loop.EventSessionStart, loop.EventPreToolUse, loop.EventStop}
}
func (toy) Harness() string { return "toy" }

func (toy) Decode(event string, input []byte) (loop.HookEvent, error) {
	var in struct{ Event, Session, Command string }
	if err := json.Unmarshal(input, &in); err != nil {
		return loop.HookEvent{}, fmt.Errorf("$: expected an object: %w", err)
	}
	if event == "" {
		event = in.Event
	}
	ev := loop.HookEvent{Name: event, SessionID: in.Session, Command: in.Command}
	if in.Command != "" {
		ev.ToolName = "Bash"
	}
	return ev, nil
}

func (toy) Encode(_ loop.HookEvent, d loop.Decision) harness.Output {
	out := harness.Output{Stdout: []byte(string(d.Action) + ":" + d.Reason + "\n")}
	if d.Action == loop.Block {
		out.Exit = 2
	}
	return out
}

func (toy) Hook() harness.Hook {
	return harness.Hook{Usage: "the command the toy harness runs for an event", EventUsage: "toy event name"}
}

func (toy) OwnedPaths(home string, _ func(string) string) []string {
	return []string{HooksFile, filepath.Join(home, ".toy", "user.json")}
}

func (toy) Doctor(env *setup.DoctorEnv) []setup.Finding {
	if _, err := os.Stat(filepath.Join(env.Dir, HooksFile)); err != nil {
		return []setup.Finding{{Level: setup.LevelWarn, What: "hook-loop is not installed for toy", Fix: "hook-loop toy install --write"}}
	}
	return []setup.Finding{{Level: setup.LevelOK, What: HooksFile + " runs hook-loop"}}
}

// InstallOptions are toy install's flags.
type InstallOptions struct {
	IO          *cmdutil.IOStreams
	Destination string
	Write       bool
}

func (toy) NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "toy",
		Usage:       "install hook-loop into the toy harness",
		Subcommands: []*cli.Command{NewCmdInstall(f, nil)},
	}
}

// NewCmdInstall builds `toy install`; runF replaces the run function in tests.
func NewCmdInstall(f *cmdutil.Factory, runF func(*InstallOptions) error) *cli.Command {
	o := &InstallOptions{}
	var dryRun bool
	return &cli.Command{
		Name:  "install",
		Usage: "write " + HooksFile,
		Flags: append([]cli.Flag{&cli.StringFlag{Name: "destination", Destination: &o.Destination}},
			cmdutil.DryRunWriteFlags(&dryRun, &o.Write)...),
		Action: func(*cli.Context) error {
			dir, err := cmdutil.ProjectDir(f.Cwd(), o.Destination)
			if err != nil {
				return err
			}
			o.IO, o.Destination = f.IOStreams, dir
			if runF != nil {
				return runF(o)
			}
			return runInstall(o)
		},
	}
}

func runInstall(o *InstallOptions) error {
	path := filepath.Join(o.Destination, HooksFile)
	after := []byte(`{"command": "hook-loop toy-hook"}` + "\n")
	changes := []scaffold.Change{{Path: path, After: after}}
	scaffold.Render(o.IO.Out, changes, nil, o.Write)
	if !o.Write {
		return nil
	}
	return scaffold.Apply(changes)
}
