package cli

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/project"
)

// loopFlag is --profile NAME of the commands that read a loop (validate,
// graph, simulate): a gallery loop instead of a file.
func loopFlag() cli.Flag {
	return &cli.StringFlag{Name: "profile", Usage: "read the gallery loop `NAME` (" + strings.Join(gallery.Names(), ", ") + ") instead of a file"}
}

// loopArgs reads a loop command's FILE and --profile: at most one of them;
// with neither, the project's hook-loop.json (found upwards from the working
// directory, as the hooks find it).
func loopArgs(c *cli.Context, f *Factory) (file, profile string, err error) {
	profile = c.String("profile")
	switch {
	case c.NArg() > 1:
		return "", "", exitf(2, "usage: %s takes one FILE, or --profile NAME (see 'hook-loop %s --help')", c.Command.Name, c.Command.Name)
	case profile != "" && c.NArg() == 1:
		return "", "", exitf(2, "usage: give a FILE or --profile NAME, not both")
	case profile != "":
		return "", profile, nil
	case c.NArg() == 1:
		return c.Args().First(), "", nil
	}
	file = project.ConfigPath(project.Root(f.Cwd()))
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return "", "", exitf(2, "usage: no FILE given and no %s here: give a FILE or --profile NAME (hook-loop init writes one)", project.ConfigName)
	}
	return file, "", nil
}

// loadLoop loads the loop loopArgs named: a gallery profile or a file.
func loadLoop(file, profile string) (*dsl.Spec, dsl.Diagnostics, error) {
	if profile == "" {
		return dsl.Load(file)
	}
	data, err := gallery.Get(profile)
	if err != nil {
		return nil, nil, exitf(2, "usage: --profile: %s", err)
	}
	return dsl.Parse("gallery/"+strings.TrimSuffix(profile, ".json")+".json", data)
}
