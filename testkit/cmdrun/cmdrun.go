// Package cmdrun runs one hook-loop command in-process for a test, with its
// own working directory and home, and returns what it printed.
package cmdrun

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// Run runs `hook-loop ARGS` where the app's only command is newCmd's, in
// dir with home as the user's home and an empty environment (but hook-loop's
// state directory, under home); a failing
// command fails the test with its output.
func Run(t testing.TB, newCmd func(*cmdutil.Factory) *cli.Command, dir, home string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	f := &cmdutil.Factory{IOStreams: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
		Getwd: func() (string, error) { return dir, nil }, Getenv: func(k string) string {
			if k == "HOOK_LOOP_STATE_DIR" {
				return filepath.Join(home, ".local", "state", "hook-loop") // hermetic: the test's own home
			}
			return ""
		},
		HomeDir: func() (string, error) { return home, nil }}
	app := &cli.App{Name: "hook-loop", Commands: []*cli.Command{newCmd(f)}}
	if err := app.Run(append([]string{"hook-loop"}, args...)); err != nil {
		t.Fatalf("hook-loop %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}
