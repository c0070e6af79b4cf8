// Package version names the build: the version hook-loop and its lean hook
// binary print, and the build identity an install compares before it writes
// the lean binary into a harness's hooks.
package version

import (
	"runtime/debug"
	"strings"
)

// Version is set at build time with -ldflags "-X .../version.Version=...".
var Version = "dev"

// String is the version: the ldflags value, else the module version of a
// `go install …@vX`, else "dev".
func String() string { return from(debug.ReadBuildInfo) }

func from(info func() (*debug.BuildInfo, bool)) string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := info(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Version
}

// Build identifies the build more finely than String: a checkout's builds
// are all "dev", so it adds the commit and whether the tree was modified. Two
// binaries with the same Build came from one source tree (as far as the
// toolchain recorded it).
func Build() string { return build(debug.ReadBuildInfo) }

func build(info func() (*debug.BuildInfo, bool)) string {
	var b strings.Builder
	b.WriteString(from(info))
	if bi, ok := info(); ok {
		b.WriteString(" " + bi.GoVersion)
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.modified", "vcs.time":
				b.WriteString(" " + s.Key + "=" + s.Value)
			}
		}
	}
	return b.String()
}
