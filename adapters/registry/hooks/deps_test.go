package hooks_test

import (
	"os/exec"
	"strings"
	"testing"
)

// heavy are the packages the hook path must not link: the CLI framework,
// install and doctor (scaffolding, templates, TOML, JSON patching), the
// network and the PostgreSQL store. A lean <name>-hook binary built on this
// list starts fast because none of them is in it.
var heavy = []string{
	"github.com/urfave/cli/v2",
	"github.com/hook-loop/hook-loop/cli/cmdutil",
	"github.com/hook-loop/hook-loop/scaffold",
	"github.com/hook-loop/hook-loop/templates",
	"text/template",
	"github.com/pelletier/go-toml/v2",
	"github.com/tidwall/sjson",
	"net/http",
	"crypto/tls",
	"github.com/jackc/pgx/v5",
	"go.yaml.in/yaml/v3",
}

// TestHookPathStaysLean fails when a harness's adapter package, or anything it
// imports, pulls one of the heavy packages (or a package under one) into the
// hook path's import graph.
func TestHookPathStaysLean(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot list the import graph of adapters/registry/hooks")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps: %v: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing")
	}
	for _, d := range deps {
		for _, h := range heavy {
			if d == h || strings.HasPrefix(d, h+"/") {
				t.Errorf("adapters/registry/hooks imports %s (heavy: %s); find the importer with go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./adapters/registry/hooks", d, h)
			}
		}
	}
}
