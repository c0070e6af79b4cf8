package cmd

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Main: debug.Module{Version: v}}, true }
	}
	if got := version(info("v1.4.0")); got != "v1.4.0" {
		t.Errorf("go install @v1.4.0: version %q", got)
	}
	if got := version(info("(devel)")); got != "dev" {
		t.Errorf("a checkout build: version %q, want dev", got)
	}
	if got := version(func() (*debug.BuildInfo, bool) { return nil, false }); got != "dev" {
		t.Errorf("no build info: version %q, want dev", got)
	}
	old := Version
	t.Cleanup(func() { Version = old })
	Version = "v2.0.0-ldflags"
	if got := version(info("v1.4.0")); got != "v2.0.0-ldflags" {
		t.Errorf("ldflags win: version %q", got)
	}
}
