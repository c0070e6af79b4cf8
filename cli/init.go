package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/schema"
	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/scaffold"
)

// SchemaFile is where init writes the JSON Schema, beside the loop: the
// loop's "$schema" names it relatively, so editors find it in every checkout
// (it is committed with the loop, unlike .hook-loop/).
const SchemaFile = project.SchemaName

// InitOptions are init's arguments.
type InitOptions struct {
	IO          *IOStreams
	WorkDir     string
	Profile     string
	Destination string
	Force       bool
}

// NewCmdInit builds `init`; runF replaces the run function in tests.
func NewCmdInit(f *Factory, runF func(*InitOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "write a starter hook-loop.json (a gallery loop) and its JSON Schema, touching no harness",
		Description: "Writes hook-loop.json (with \"$schema\": \"./" + SchemaFile + "\") and " + SchemaFile + "\n" +
			"into the project. Edit it, check it with hook-loop validate and hook-loop simulate,\n" +
			"then install it into a harness: hook-loop codex|claude|opencode|pi install --write.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", Value: gallery.Default, Usage: "the gallery loop `NAME` to start from (see hook-loop gallery)"},
			&cli.StringFlag{Name: "destination", Usage: "project directory (default: the project the current directory is in: the nearest directory up holding hook-loop.json, .hook-loop or .git)"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing hook-loop.json"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: init takes no arguments (see 'hook-loop init --help')")
			}
			return run(runF, runInit, &InitOptions{IO: f.IOStreams, WorkDir: f.Cwd(), Profile: c.String("profile"),
				Destination: c.String("destination"), Force: c.Bool("force")})
		},
	}
}

func runInit(o *InitOptions) error {
	dir, err := cmdutil.ProjectDir(o.WorkDir, o.Destination)
	if err != nil {
		return err
	}
	cmdutil.RootNote(o.IO.Out, o.WorkDir, o.Destination, dir)
	data, err := gallery.Get(o.Profile)
	if err != nil {
		return exitf(2, "usage: --profile: %s", err)
	}
	data = withSchema(data)
	path := project.ConfigPath(dir)
	if _, _, err := dsl.Parse(path, data); err != nil {
		return fmt.Errorf("init: the starter loop does not load: %w", err)
	}
	if _, err := os.Stat(path); err == nil && !o.Force {
		return exitf(1, "init: %s already exists: kept as it is (add --force to replace it)", path)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("init: %w", err)
	}
	changes := []scaffold.Change{
		{Path: path, After: data, Note: fmt.Sprintf("loop %q from the gallery", strings.TrimSuffix(o.Profile, ".json"))},
		{Path: filepath.Join(dir, SchemaFile), After: schema.JSON, Note: "the JSON Schema its \"$schema\" names"},
	}
	if err := scaffold.Apply(changes); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	scaffold.Render(o.IO.Out, changes, []string{
		"no harness was touched; next: hook-loop validate, hook-loop simulate, hook-loop graph,",
		"then hook-loop codex|claude|opencode|pi install --write",
	}, true)
	return nil
}

// withSchema adds "$schema" as the loop's first key (the gallery files are
// objects that open with "{\n").
func withSchema(data []byte) []byte {
	rest, ok := bytes.CutPrefix(data, []byte("{\n"))
	if !ok {
		return data
	}
	return append([]byte("{\n  \"$schema\": \"./"+SchemaFile+"\",\n"), rest...)
}
