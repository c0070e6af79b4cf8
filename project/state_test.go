package project

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUserLogPathResolvesLinks: every spelling of a project through symbolic
// links has one log in the user's state directory, and a log written under a
// link's spelling before links were resolved keeps being used.
func TestUserLogPathResolvesLinks(t *testing.T) {
	base := t.TempDir()
	state := filepath.Join(base, "state")
	getenv := func(k string) string {
		if k == "HOOK_LOOP_STATE_DIR" {
			return state
		}
		return ""
	}
	real := filepath.Join(base, "real", "proj")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(base, "real"), link); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(link, "proj")
	realLog := UserLogPath(real, getenv)
	if got := UserLogPath(viaLink, getenv); got != realLog {
		t.Fatalf("through a link: %s, want the real path's %s", got, realLog)
	}
	if filepath.Dir(filepath.Dir(realLog)) != filepath.Join(state, "projects") {
		t.Fatalf("log %s not under %s", realLog, state)
	}

	// A folder written under the link's spelling (before this change) is
	// the log's while the resolved one has none.
	legacy := userLogPath(viaLink, getenv)
	if legacy == realLog {
		t.Fatal("the two spellings hash alike: the test proves nothing")
	}
	if err := os.MkdirAll(filepath.Dir(legacy), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := UserLogPath(viaLink, getenv); got != legacy {
		t.Fatalf("with an older log under the link's spelling: %s, want %s", got, legacy)
	}
	if err := os.MkdirAll(filepath.Dir(realLog), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := UserLogPath(viaLink, getenv); got != realLog {
		t.Fatalf("once the resolved folder exists: %s, want %s", got, realLog)
	}
	// A project that does not exist yet (an install creating it) is hashed
	// as spelled.
	missing := filepath.Join(base, "new")
	if got, want := UserLogPath(missing, getenv), userLogPath(missing, getenv); got != want {
		t.Fatalf("missing project: %s, want %s", got, want)
	}
}
