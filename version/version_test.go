package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Main: debug.Module{Version: v}}, true }
	}
	if got := from(info("v1.4.0")); got != "v1.4.0" {
		t.Errorf("go install @v1.4.0: version %q", got)
	}
	if got := from(info("(devel)")); got != "dev" {
		t.Errorf("a checkout build: version %q, want dev", got)
	}
	if got := from(func() (*debug.BuildInfo, bool) { return nil, false }); got != "dev" {
		t.Errorf("no build info: version %q, want dev", got)
	}
	old := Version
	t.Cleanup(func() { Version = old })
	Version = "v2.0.0-ldflags"
	if got := from(info("v1.4.0")); got != "v2.0.0-ldflags" {
		t.Errorf("ldflags win: version %q", got)
	}
}

// Two checkout builds differ in Build when their commits or modified flags do.
func TestBuildNamesTheCommit(t *testing.T) {
	info := func(rev, mod string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: mod}, {Key: "-trimpath", Value: "true"}}}, true
		}
	}
	a, b, c := build(info("abc", "false")), build(info("abd", "false")), build(info("abc", "true"))
	if a == b || a == c || !strings.HasPrefix(a, "dev go1.26 ") || !strings.Contains(a, "vcs.revision=abc") {
		t.Errorf("builds %q %q %q", a, b, c)
	}
	if a != build(info("abc", "false")) {
		t.Error("one tree, two Build values")
	}
}

func TestLongNamesStampedCommitAndDate(t *testing.T) {
	oldV, oldC, oldD := Version, Commit, Date
	t.Cleanup(func() { Version, Commit, Date = oldV, oldC, oldD })
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	if got := long(none); got != "hook-loop dev (commit unknown)" {
		t.Errorf("unstamped: %q", got)
	}
	vcs := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "T"}, {Key: "vcs.modified", Value: "true"}}}, true
	}
	if got := long(vcs); got != "hook-loop dev (commit abc, modified, built T)" {
		t.Errorf("checkout: %q", got)
	}
	Version, Commit, Date = "1.2.3", "deadbeef", "2026-12-03T10:00:00Z"
	if got := long(vcs); got != "hook-loop 1.2.3 (commit deadbeef, built 2026-12-03T10:00:00Z)" {
		t.Errorf("release: %q", got)
	}
	if got := build(none); got != "1.2.3 commit=deadbeef" {
		t.Errorf("release build id: %q", got)
	}
}
