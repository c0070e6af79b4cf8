package dsl

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update rewrites golden files instead of comparing with them:
// go test ./loop/ -run Golden -update. It is the package's one -update flag;
// other golden tests in loop/ should use checkGolden too.
var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// checkGolden compares got with testdata/golden/name (or writes it with -update).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// referenceDir is the Python original's DSL files, beside the repository
// (../shared/reference/python-hook-loop from the repo root). Tests that need it
// skip with a message when it is absent.
func referenceDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "reference", "python-hook-loop"))
	if err == nil {
		if _, err = os.Stat(dir); err == nil {
			return dir
		}
	}
	t.Skipf("../shared/reference/python-hook-loop is absent (%v): the prototype compatibility tests need the shared reference files beside the repository", err)
	return ""
}

// referenceFiles lists every reference DSL file, relative to referenceDir.
func referenceFiles(t testing.TB) (string, []string) {
	dir := referenceDir(t)
	var files []string
	for _, pattern := range []string{"gallery/*.json", "examples/*.json", "hook-loop.json"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(dir, f)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	if len(files) == 0 {
		t.Fatalf("no reference DSL files under %s", dir)
	}
	return dir, files
}
