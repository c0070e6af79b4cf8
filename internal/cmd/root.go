// Package cmd holds hook-loop's commands. Each command is an options struct plus a
// run function, built by a newXxxCommand(io) constructor; IO streams are injected so
// tests run commands in-process.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// Version is set at build time with -ldflags "-X .../internal/cmd.Version=...".
var Version = "dev"

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// ExitError carries a specific exit status with an optional one-line message.
// A command returns it when the status is part of its contract (validate's 1,
// a hook's 2) rather than a failure.
type ExitError struct {
	Code    int
	Message string
}

func (e *ExitError) Error() string { return e.Message }

// exitf builds an ExitError with a formatted message.
func exitf(code int, format string, args ...any) *ExitError {
	return &ExitError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// commands lists every top-level command constructor. Keep one line per command.
var commands = []func(*IOStreams) *cli.Command{}

// register adds a command constructor; each command file calls it from init so
// that parallel work on commands never touches the same lines.
func register(c func(*IOStreams) *cli.Command) { commands = append(commands, c) }

// NewApp builds the CLI application around the given streams.
func NewApp(s *IOStreams) *cli.App {
	app := &cli.App{
		Name:                 "hook-loop",
		Usage:                "gate coding agents with a JSON state machine, through their hooks",
		Version:              Version,
		Reader:               s.In,
		Writer:               s.Out,
		ErrWriter:            s.ErrOut,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return exitf(2, "usage: %s (see '%s --help')", oneLine(err.Error()), c.Command.HelpName)
		},
	}
	for _, c := range commands {
		cmd := c(s)
		setUsageErrorHandler(cmd)
		app.Commands = append(app.Commands, cmd)
	}
	app.CommandNotFound = func(c *cli.Context, name string) {
		fmt.Fprintf(s.ErrOut, "hook-loop: unknown command %q (see 'hook-loop --help')\n", name)
		panic(unknownCommand{})
	}
	return app
}

type unknownCommand struct{}

func setUsageErrorHandler(c *cli.Command) {
	if c.OnUsageError == nil {
		c.OnUsageError = func(ctx *cli.Context, err error, _ bool) error {
			return exitf(2, "usage: %s (see '%s --help')", oneLine(err.Error()), ctx.Command.HelpName)
		}
	}
	for _, sub := range c.Subcommands {
		setUsageErrorHandler(sub)
	}
}

// Main runs hook-loop with args (args[0] is the program name) and returns the exit
// status. Errors are printed as one line on stderr.
func Main(args []string, in io.Reader, out, errOut io.Writer) (code int) {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(unknownCommand); ok {
				code = 2
				return
			}
			panic(r)
		}
	}()
	app := NewApp(s)
	err := app.Run(interspersed(app, args))
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
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
