// Package install installs hook-loop into Gemini CLI (its settings files) and
// checks the installation; the adapter the hooks run is the parent package's,
// which the lean hook binary links without this.
package install

import (
	"github.com/hook-loop/hook-loop/adapters/gemini"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is Gemini CLI for the registry.
var Harness setup.Harness = geminiHarness{gemini.Hooks}

type geminiHarness struct{ harness.Hooks }

func (geminiHarness) NewCmd(f *cmdutil.Factory) *cli.Command { return NewCmd(f) }
func (geminiHarness) Doctor(env *setup.DoctorEnv) []setup.Finding {
	return checkInstall(env, nil)
}
