package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/replay"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/urfave/cli/v2"
)

// NewCmdGallery builds `gallery`: the loops --profile accepts, one line each,
// and `gallery check` for the harnesses hs; runF and checkF replace the run
// functions in tests.
func NewCmdGallery(f *Factory, hs []setup.Harness, runF func(*IOStreams) error, checkF func(*GalleryCheckOptions) error) *cli.Command {
	o := &GalleryCheckOptions{}
	return &cli.Command{
		Name:  "gallery",
		Usage: "list the gallery loops (--profile NAME of init, install, validate, simulate, graph), one line each",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: unknown gallery subcommand %q (expected check, or no arguments)", c.Args().First())
			}
			return run(runF, runGallery, f.IOStreams)
		},
		Subcommands: []*cli.Command{{
			Name:        "check",
			Usage:       "replay every gallery loop's recorded harness sessions and compare each end state with the loop's promise",
			ArgsUsage:   " ",
			Description: galleryCheckUsage,
			Flags:       []cli.Flag{&cli.StringSliceFlag{Name: "harness", Usage: "check only harness `H` (repeatable): " + strings.Join(harnessNames(hs), "|")}},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return exitf(2, "usage: gallery check takes no arguments (got %q)", c.Args().First())
				}
				o.IO, o.ctx, o.Adapters = f.IOStreams, c.Context, hooks.Adapters(registry.Hooks(hs))
				for _, h := range c.StringSlice("harness") {
					o.Harnesses = append(o.Harnesses, strings.Split(h, ",")...)
				}
				return run(checkF, runGalleryCheck, o)
			},
		}},
	}
}

func runGallery(s *IOStreams) error {
	names := gallery.Names()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		summary, err := gallery.Summary(n)
		if err != nil {
			return err
		}
		mark := " "
		if n == gallery.Default {
			mark = "*"
		}
		fmt.Fprintf(s.Out, "%s %-*s  %s\n", mark, width, n, summary)
	}
	fmt.Fprintf(s.Out, "(* the default; hook-loop graph --profile NAME draws one, hook-loop init --profile NAME starts from one)\n")
	return nil
}

// GalleryCheckOptions are the flags of `gallery check`.
type GalleryCheckOptions struct {
	IO       *IOStreams
	Adapters map[string]harness.Adapter // by harness name
	// Harnesses are the --harness values; none: every harness with recorded
	// sessions.
	Harnesses []string
	// Edit, when set, changes a loop's file before it is checked: a test's
	// broken loop.
	Edit func(loop string, data []byte) []byte
	ctx  context.Context
}

// galleryCheckUsage is the description of `gallery check`.
const galleryCheckUsage = "Replays the real harness sessions recorded for every gallery loop (gallery/traces)\n" +
	"through the chosen harnesses' hook adapters and the embedded loop, and prints, per\n" +
	"recorded session, the state it ends in against the one the loop promises. Exit status:\n" +
	"0 every session ends as promised, 1 one does not (or a chosen harness has no recorded\n" +
	"sessions), 2 usage."

func runGalleryCheck(o *GalleryCheckOptions) error {
	for _, h := range o.Harnesses {
		if _, ok := o.Adapters[h]; !ok {
			return exitf(2, "usage: --harness %q: expected one of %s", h, strings.Join(sortedNames(o.Adapters), ", "))
		}
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	tw := tabwriter.NewWriter(o.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LOOP\tHARNESS\tRECORDED\tENDS IN\tPROMISED\tRESULT")
	checked, differ := 0, 0
	seen := map[string]bool{}
	for _, name := range gallery.Names() {
		data, err := gallery.Get(name)
		if err != nil {
			return err
		}
		if o.Edit != nil {
			data = o.Edit(name, data)
		}
		spec, _, err := dsl.Parse("gallery/"+name+".json", data)
		if err != nil {
			return fmt.Errorf("gallery check: %w", err)
		}
		traces, err := gallery.Traces(name)
		if err != nil {
			return fmt.Errorf("gallery check: %w", err)
		}
		for _, tr := range traces {
			if len(o.Harnesses) > 0 && !slices.Contains(o.Harnesses, tr.Harness) {
				continue
			}
			if _, ok := o.Adapters[tr.Harness]; !ok {
				continue
			}
			seen[tr.Harness] = true
			checked++
			result, ends := "ok", ""
			v, err := checkOne(ctx, spec, o.Adapters, tr)
			switch {
			case err != nil:
				differ++
				result, ends = "DIFFERS: "+oneLine(err.Error()), "(replay failed)"
			case !v.OK():
				differ++
				result, ends = "DIFFERS", v.End()
				if v.Completed() {
					result = "DIFFERS: no early stop was refused"
				}
			default:
				ends = v.End()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, tr.Harness, tr.Kind, ends, v.PromisedOr(spec, tr), result)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, h := range o.Harnesses {
		if !seen[h] {
			differ++
			fmt.Fprintf(o.IO.ErrOut, "gallery check: no recorded sessions for harness %s: nothing of it was checked\n", h)
		}
	}
	if differ > 0 {
		return exitf(1, "gallery check: %d of %d recorded sessions end otherwise than their loop promises", differ, checked)
	}
	fmt.Fprintf(o.IO.Out, "%d recorded sessions end as their loops promise\n", checked)
	return nil
}

// checkOne replays tr in a scratch project and log, removed afterwards.
func checkOne(ctx context.Context, spec *dsl.Spec, adapters map[string]harness.Adapter, tr gallery.Trace) (replay.Verdict, error) {
	root, err := os.MkdirTemp("", "hook-loop-gallery-check-")
	if err != nil {
		return replay.Verdict{}, err
	}
	defer os.RemoveAll(root)
	logDir, err := os.MkdirTemp("", "hook-loop-gallery-log-")
	if err != nil {
		return replay.Verdict{}, err
	}
	defer os.RemoveAll(logDir)
	return replay.CheckTrace(ctx, spec, adapters, tr, root, logDir)
}

func sortedNames[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
