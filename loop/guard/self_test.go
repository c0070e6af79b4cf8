package guard

import (
	"os"
	"path/filepath"
	"testing"
	"unicode"

	"github.com/hook-loop/hook-loop/internal/shell"
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

// TestDropsSQLAsTheExpression: the "drop" pre-check never changes what
// dropSQL decides: nothing but d, r, o and p in either case folds to them,
// and on commands with and without it the two agree.
func TestDropsSQLAsTheExpression(t *testing.T) {
	for _, c := range "drop" {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f != unicode.ToUpper(c) {
				t.Fatalf("%q folds to %q: the ASCII pre-check would miss it", c, f)
			}
		}
	}
	for _, cmd := range []string{
		"psql -c 'DROP TABLE users'", "psql -c 'drop   database x'", "drop\tschema s", "DrOp TaBlE t",
		"echo drop tables", "psql -c 'drop table'", "xdrop table t", "drop table_x", "drop ſchema s",
		"go test ./...", "dro p table", "d\u0280op table", "", "drop", "drop table", "DROP\nTABLE t",
		"echo dropped table", "backdrop database", "drop-table", "drop \u00a0table",
	} {
		if got, want := dropsSQL(cmd), dropSQL().MatchString(cmd); got != want {
			t.Errorf("%q: dropsSQL %v, dropSQL %v", cmd, got, want)
		}
	}
}

func FuzzDropsSQL(f *testing.F) {
	f.Add("psql -c 'DROP TABLE users'")
	f.Add("drop ſchema s")
	f.Fuzz(func(t *testing.T, cmd string) {
		if got, want := dropsSQL(cmd), dropSQL().MatchString(cmd); got != want {
			t.Errorf("%q: dropsSQL %v, dropSQL %v", cmd, got, want)
		}
	})
}
