package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/loop/guard/shell"
)

// TestSelfIsAskedOnlyForAPath: the running binary is looked up only for a
// command named by a path, and a command running it by that path, or by a
// link to it, is hook-loop's.
func TestSelfIsAskedOnlyForAPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hl")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(bin, link); err != nil {
		t.Skip(err)
	}
	asked := 0
	p := &Policy{Self: func() string { asked++; return bin }}
	call := func(cmd string) Call { return Call{Calls: shell.Parse(cmd)} }
	for _, cmd := range []string{"go test ./...", "hl reload", "ls -la /tmp"} {
		if _, ok := p.SelfCommand(call(cmd)); ok {
			t.Errorf("%q read as hook-loop", cmd)
		}
	}
	if asked != 0 {
		t.Fatalf("Self asked %d times for commands named without a path", asked)
	}
	for _, cmd := range []string{bin + " reload", link + " reload", dir + "/./hl uninstall"} {
		if _, ok := p.SelfCommand(call(cmd)); !ok {
			t.Errorf("%q not read as hook-loop", cmd)
		}
	}
	if asked == 0 {
		t.Fatal("Self never asked for a command named by its path")
	}
	for _, self := range []func() string{nil, func() string { return "" }} {
		p := &Policy{Self: self}
		if _, ok := p.SelfCommand(call(bin + " reload")); ok {
			t.Error("an unknown Self matched a path")
		}
	}
}
