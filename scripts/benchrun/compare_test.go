package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCells(t *testing.T, name string, cells []*cell) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	b, _ := json.Marshal(cells)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A base build without hook-loop-hook (only hook-loop cells) against this
// tree's two binaries: by default each binary against its own kind; with
// -a-binary/-b-binary, base's hook-loop against the lean binary (what installs
// write), the floors kept.
func TestCompareByBinary(t *testing.T) {
	base := writeCells(t, "base.json", []*cell{
		{Event: helloEvent, Size: -1, Wall: flat(2, 2), CPU: flat(1, 2)},
		{Event: versionEvent, Size: -1, Binary: "hook-loop", Wall: flat(4, 2), CPU: flat(1, 2)},
		{Event: "Stop", Size: 10000, Binary: "hook-loop", Wall: flat(5, 2), CPU: flat(1, 2)},
	})
	tree := writeCells(t, "tree.json", []*cell{
		{Event: helloEvent, Size: -1, Wall: flat(2, 2), CPU: flat(1, 2)},
		{Event: versionEvent, Size: -1, Binary: "hook-loop-hook", Wall: flat(3, 2), CPU: flat(1, 2)},
		{Event: versionEvent, Size: -1, Binary: "hook-loop", Wall: flat(4, 2), CPU: flat(1, 2)},
		{Event: "Stop", Size: 10000, Binary: "hook-loop-hook", Wall: flat(2.5, 2), CPU: flat(1, 2)},
		{Event: "Stop", Size: 10000, Binary: "hook-loop", Wall: flat(6, 2), CPU: flat(1, 2)},
	})

	o, err := parseCompareFlags([]string{"-a", base, "-b", tree + "," + tree, "-a-name", "base", "-b-name", "tree"})
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := runCompare(o, &w); err != nil {
		t.Fatal(err)
	}
	got := w.String()
	for _, want := range []string{
		"| event | binary | log events | base wall ms | tree wall ms | ratio | base ÷ hello-world | tree ÷ hello-world |",
		"| (Go hello-world reading stdin) | – | – | 2.00 | 2.00 | 1.000 |",
		"| Stop | hook-loop | 10,000 | 5.00 | 6.00 | 1.200 | 2.50× | 3.00× | 1.00 | 1.00 | 1.000 | 2/4 |",
		"worst cell ratio 1.200 (limit 1.10: MISSED)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("same binaries: lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hook-loop-hook") {
		t.Errorf("same binaries: the lean rows have no base to meet:\n%s", got)
	}

	o, err = parseCompareFlags([]string{"-a", base, "-b", tree, "-a-binary", "hook-loop", "-b-binary", "hook-loop-hook"})
	if err != nil {
		t.Fatal(err)
	}
	w.Reset()
	if err := runCompare(o, &w); err != nil {
		t.Fatal(err)
	}
	got = w.String()
	for _, want := range []string{
		"| (Go hello-world reading stdin) | – | – | 2.00 | 2.00 |",
		"| (start-up only: --version) | hook-loop → hook-loop-hook | – | 4.00 | 3.00 | 0.750 |",
		"| Stop | hook-loop → hook-loop-hook | 10,000 | 5.00 | 2.50 | 0.500 |",
		"(limit 1.10: met)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("across binaries: lacks %q:\n%s", want, got)
		}
	}

	if _, err := parseCompareFlags([]string{"-a", base, "-b", tree, "-a-binary", "hook-loop"}); err == nil {
		t.Error("-a-binary without -b-binary was taken")
	}
}

// Files from before cells named their binary still pool, with or without a
// binary picked.
func TestCompareOldFiles(t *testing.T) {
	old := writeCells(t, "old.json", []*cell{
		{Event: "Stop", Size: 10000, Wall: flat(5, 2), CPU: flat(1, 2)},
	})
	tree := writeCells(t, "tree.json", []*cell{
		{Event: "Stop", Size: 10000, Binary: "hook-loop-hook", Wall: flat(2.5, 2), CPU: flat(1, 2)},
	})
	o, err := parseCompareFlags([]string{"-a", old, "-b", tree, "-a-binary", "hook-loop", "-b-binary", "hook-loop-hook"})
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := runCompare(o, &w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "| Stop | – → hook-loop-hook | 10,000 | 5.00 | 2.50 | 0.500 |") {
		t.Errorf("old file against the lean binary:\n%s", w.String())
	}
}

// Each side's multiple of the hello-world is against the hello-world runs of
// its cell's own rounds, pooled over the files, where the cell has them.
func TestCompareHelloMultiples(t *testing.T) {
	a1 := writeCells(t, "a1.json", []*cell{
		{Event: helloEvent, Size: -1, Wall: flat(9, 2), CPU: flat(1, 2)},
		{Event: "Stop", Size: 10000, Binary: "hook-loop-hook", Wall: flat(4, 2), CPU: flat(1, 2), Hello: flat(2, 2)},
	})
	a2 := writeCells(t, "a2.json", []*cell{
		{Event: helloEvent, Size: -1, Wall: flat(9, 2), CPU: flat(1, 2)},
		{Event: "Stop", Size: 10000, Binary: "hook-loop-hook", Wall: flat(4, 2), CPU: flat(1, 2), Hello: flat(2, 2)},
	})
	b := writeCells(t, "b.json", []*cell{
		{Event: helloEvent, Size: -1, Wall: flat(2, 2), CPU: flat(1, 2)},
		{Event: "Stop", Size: 10000, Binary: "hook-loop-hook", Wall: flat(3, 2), CPU: flat(1, 2)},
	})
	o, err := parseCompareFlags([]string{"-a", a1 + "," + a2, "-b", b})
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := runCompare(o, &w); err != nil {
		t.Fatal(err)
	}
	// a: 4 ms over its own rounds' 2 ms, not the 9 ms floor row; b has no
	// rounds' runs, so its floor row's 2 ms.
	if want := "| Stop | hook-loop-hook | 10,000 | 4.00 | 3.00 | 0.750 | 2.00× | 1.50× | 1.00 | 1.00 | 1.000 | 4/2 |"; !strings.Contains(w.String(), want) {
		t.Errorf("lacks %q:\n%s", want, w.String())
	}
}
