// Package version names the build: the version hook-loop and its lean hook
// binary print, and the build identity an install compares before it writes
// the lean binary into a harness's hooks.
package version

import (
	"runtime/debug"
	"strings"
)

// Version, Commit and Date are set at build time by the release build
// (.goreleaser.yaml) with -ldflags "-X .../version.Version=...".
var (
	Version = "dev"
	Commit  = ""
	Date    = ""
)

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

// Long is what `hook-loop version` prints: the version, then the commit and
// build date the release stamped, or else what the toolchain recorded of the
// checkout it was built from (nothing under -buildvcs=false).
func Long() string { return long(debug.ReadBuildInfo) }

func long(info func() (*debug.BuildInfo, bool)) string {
	commit, date, modified := Commit, Date, false
	if bi, ok := info(); ok && commit == "" {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				date = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	s := "hook-loop " + from(info)
	if commit == "" {
		return s + " (commit unknown)"
	}
	if modified {
		commit += ", modified"
	}
	s += " (commit " + commit
	if date != "" {
		s += ", built " + date
	}
	return s + ")"
}

// Build identifies the build more finely than String: a checkout's builds
// are all "dev", so it adds the commit and whether the tree was modified. Two
// binaries with the same Build came from one source tree (as far as the
// toolchain recorded it).
func Build() string { return build(debug.ReadBuildInfo) }

func build(info func() (*debug.BuildInfo, bool)) string {
	var b strings.Builder
	b.WriteString(from(info))
	if Commit != "" {
		// A release build's ldflags name its commit; -buildvcs=false left none.
		b.WriteString(" commit=" + Commit)
	}
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
