// Package install installs hook-loop into Qwen Code (its settings files, in
// Claude Code's shape: the same install and doctor as Claude Code's, in Qwen's
// flavor) and checks the installation.
package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/claude"
	claudeinstall "github.com/hook-loop/hook-loop/adapters/claude/install"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/qwen"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// Flavor is Qwen Code's settings: .qwen/settings.json in the project and in
// home, no local file. Every tool reaches the hooks (no matcher): Qwen's
// matchers name its own tools, not the loop's canonical ones.
var Flavor = &claudeinstall.Flavor{Name: qwen.Name, Product: "Qwen Code", Dir: ".qwen",
	ProjectDirVar: qwen.ProjectDirVar, Events: qwen.NativeEvents, IsToolEvent: claude.IsToolEvent,
	Doctor: doctor}

// Harness is Qwen Code for the registry.
var Harness setup.Harness = qwenHarness{qwen.Hooks}

type qwenHarness struct{ harness.Hooks }

func (qwenHarness) NewCmd(f *cmdutil.Factory) *cli.Command      { return Flavor.NewCmd(f) }
func (qwenHarness) Doctor(env *setup.DoctorEnv) []setup.Finding { return Flavor.CheckInstall(env) }

// TestedVersion is the Qwen Code release the end-to-end test drives.
const TestedVersion = "0.24.4"

// doctor adds Qwen Code's own checks: folder trust (an untrusted folder's
// project settings, hooks included, are ignored) and the version.
func doctor(env *setup.DoctorEnv, out *setup.Findings) {
	home := env.UserHome()
	if home != "" {
		b, _ := os.ReadFile(filepath.Join(home, ".qwen", "settings.json"))
		if gjson.GetBytes(b, "security.folderTrust.enabled").Bool() {
			if trusted(home, env.Dir) {
				out.Add(setup.LevelOK, "folder trust is on and "+env.Dir+" is trusted", "")
			} else {
				out.Add(setup.LevelWarn, fmt.Sprintf("folder trust is on (~/.qwen/settings.json) and %s is not in ~/.qwen/trustedFolders.json: Qwen Code ignores the project's .qwen/settings.json, hooks included", env.Dir),
					"trust the folder in Qwen Code (/permissions), or install with --scope user")
			}
		}
	}
	*out = append(*out, setup.CheckVersion(env.Ctx, "qwen", TestedVersion, "Qwen Code"))
}

// trusted reports whether ~/.qwen/trustedFolders.json trusts dir, by the
// longest rule dir lies in (a DO_NOT_TRUST inside a trusted folder wins).
func trusted(home, dir string) bool {
	b, err := os.ReadFile(filepath.Join(home, ".qwen", "trustedFolders.json"))
	if err != nil {
		return false
	}
	var m map[string]string
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	return setup.Trusted(setup.TrustRule(m, dir))
}
