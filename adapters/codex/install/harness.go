// Package install installs hook-loop into Codex CLI (hooks.json, trust through
// Codex's app-server) and checks the installation; the adapter the hooks run
// is the parent package's, which the lean hook binary links without this.
package install

import (
	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is Codex CLI for the registry.
var Harness setup.Harness = codexHarness{codex.Hooks}

type codexHarness struct{ harness.Hooks }

func (codexHarness) NewCmd(f *cmdutil.Factory) *cli.Command { return NewCmd(f) }
func (codexHarness) Doctor(env *setup.DoctorEnv) []setup.Finding {
	return checkInstall(env)
}
