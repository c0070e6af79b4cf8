// Package cmd holds hook-loop's commands, in cli/cli's shape: each is an options
// struct plus a run function, built by NewCmdX(f, runF). The Factory hands it
// its IO streams and working directory, so tests run commands in-process; a
// test passes runF to check flag parsing without running anything. The
// harnesses' commands come from the registry (adapters/registry).
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hook-loop/hook-loop/operator"
	"github.com/hook-loop/hook-loop/overview"

	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/diag/suggest"
	"github.com/hook-loop/hook-loop/version"
	"github.com/urfave/cli/v2"
)

// IOStreams, Factory and ExitError are cmdutil's: the harness packages build
// their install commands from the same parts.
type (
	IOStreams = cmdutil.IOStreams
	Factory   = cmdutil.Factory
	ExitError = cmdutil.ExitError
)

// exitf builds an ExitError with a formatted message.
func exitf(code int, format string, args ...any) *ExitError {
	return cmdutil.Exitf(code, format, args...)
}

// commands is every top-level command, in the order help lists them: writing
// and checking a loop, watching it run, lifecycle hooks, then each harness's
// install and hook commands (in the registry's order), doctor last but one.
func commands(f *Factory, hs []setup.Harness) []*cli.Command {
	cmds := []*cli.Command{
		NewCmdInit(f, nil),
		NewCmdHarnessVerb(f, hs, "install"),
		NewCmdHarnessVerb(f, hs, "uninstall"),
		NewCmdGallery(f, hs, nil, nil),
		NewCmdValidate(f, nil),
		NewCmdGraph(f, nil),
		NewCmdSimulate(f, nil),
		NewCmdSchema(f, nil),
		NewCmdStatus(f, nil),
		NewCmdReload(f, nil),
		NewCmdLog(f, nil),
		NewCmdBoard(f, nil),
		NewCmdNotify(f, nil),
	}
	for _, a := range operator.Actions {
		cmds = append(cmds, NewCmdOperator(f, a, nil))
	}
	cmds = append(cmds,
		NewCmdStore(f, nil),
		NewCmdReplay(f, hs, nil),
		NewCmdDemo(f, nil),
		NewCmdHooks(f, nil),
	)
	for _, h := range hs {
		cmds = append(cmds, h.NewCmd(f), NewCmdHook(f, h, hs, nil))
	}
	return append(cmds,
		NewCmdServe(f, hs, nil),
		NewCmdDoctor(f, hs, nil),
		NewCmdCompletion(f, nil),
		NewCmdVersion(f, nil),
	)
}

// NewApp builds the CLI application for the harnesses hs.
func NewApp(f *Factory, hs []setup.Harness) *cli.App {
	s := f.IOStreams
	app := &cli.App{
		Name:                 "hook-loop",
		Usage:                "gate coding agents with a JSON state machine, through their hooks",
		Version:              f.Version,
		Reader:               s.In,
		Writer:               s.Out,
		ErrWriter:            s.ErrOut,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageError(err, "hook-loop", c.App.Flags)
		},
	}
	for _, cmd := range commands(f, hs) {
		setUsageErrorHandler(cmd)
		app.Commands = append(app.Commands, cmd)
	}
	app.CommandNotFound = func(c *cli.Context, name string) {
		// A subcommand's parent ("codex instal") or the app itself.
		cmds, help := c.App.VisibleCommands(), "hook-loop"
		if c.Command != nil && len(c.Command.Subcommands) > 0 {
			cmds, help = c.Command.VisibleCommands(), c.Command.HelpName
		}
		var names []string
		for _, cmd := range cmds {
			names = append(names, cmd.Names()...)
		}
		fmt.Fprintf(s.ErrOut, "hook-loop: unknown command %q%s (see '%s --help')\n", name, suggest.Hint(name, names), help)
		panic(unknownCommand{})
	}
	return app
}

type unknownCommand struct{}

func setUsageErrorHandler(c *cli.Command) {
	if c.OnUsageError == nil {
		c.OnUsageError = func(ctx *cli.Context, err error, _ bool) error {
			return usageError(err, ctx.Command.HelpName, ctx.Command.Flags)
		}
	}
	for _, sub := range c.Subcommands {
		setUsageErrorHandler(sub)
	}
}

// usageError is the one-line usage error of a command, with the closest flag
// when the error is an unknown one.
func usageError(err error, helpName string, flags []cli.Flag) error {
	msg := oneLine(err.Error())
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		names = append(names, "help")
		if c := suggest.Closest(name, names); c != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", c)
		}
	}
	return exitf(2, "usage: %s (see '%s --help')", msg, helpName)
}

// helpArgs turns `hook-loop help [CMD...]` into `hook-loop [CMD...] --help`:
// the help command is hidden from the list, yet people type it.
func helpArgs(args []string) []string {
	if len(args) < 2 || args[1] != "help" {
		return args
	}
	return append(append([]string{args[0]}, args[2:]...), "--help")
}

// Main runs hook-loop with args (args[0] is the program name) and returns the exit
// status. Errors are printed as one line on stderr.
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	f, hs := cmdutil.New(&IOStreams{In: in, Out: out, ErrOut: errOut}, version.String()), registry.All()
	if code, ok := runHookDirect(f, hs, args); ok {
		return code
	}
	return Run(f, hs, args)
}

// Run runs hook-loop for the harnesses hs with the factory's streams and
// working directory, and returns the exit status.
func Run(f *Factory, hs []setup.Harness, args []string) (code int) {
	errOut := f.IOStreams.ErrOut
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(unknownCommand); ok {
				code = 2
				return
			}
			panic(r)
		}
	}()
	app := NewApp(f, hs)
	return exitCode(errOut, app.Run(interspersed(app, helpArgs(args))))
}

// exitCode prints err as one line on errOut and returns the exit status it
// stands for.
func exitCode(errOut io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Message != "" {
			fmt.Fprintln(errOut, "hook-loop: "+oneLine(ee.Message))
		}
		return ee.Code
	}
	fmt.Fprintln(errOut, "hook-loop: "+oneLine(err.Error()))
	return 1
}

// oneLine folds a multi-line error into one line: the brief promises one-line errors.
var oneLine = overview.OneLine

// run calls runF when a test injected one, else the command's own run function.
func run[O any](runF, own func(*O) error, o *O) error {
	if runF != nil {
		return runF(o)
	}
	return own(o)
}
