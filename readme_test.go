package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeOutline holds the README to the outline a newcomer reads top to
// bottom: at most 250 lines, Install (every way in) and Quick start in the
// first 80, the sections in order, and every relative link naming a file
// that exists.
func TestReadmeOutline(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 250 {
		t.Errorf("README.md has %d lines, more than 250: move depth to docs/", len(lines))
	}
	at := map[string]int{}
	for i, l := range lines {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			at[h] = i + 1
		}
	}
	order := []string{"Install", "Quick start", "Harnesses", "Writing a loop", "Watch and steer", "What survives the agent", "The team store", "Development"}
	last := 0
	for _, h := range order {
		n, ok := at[h]
		switch {
		case !ok:
			t.Errorf("README.md has no section %q", h)
		case n < last:
			t.Errorf("README.md section %q (line %d) comes before the one above it in the outline", h, n)
		}
		last = max(last, n)
	}
	if at["Install"] == 0 || at["Quick start"] == 0 || at["Harnesses"] > 81 {
		t.Errorf("Install (line %d) and Quick start (line %d, ending by line %d) must be in the first 80 lines", at["Install"], at["Quick start"], at["Harnesses"]-1)
	}
	install := strings.Join(lines[at["Install"]:at["Quick start"]-1], "\n")
	for _, way := range []string{"npm install -g hook-loop", "install.sh", "brew install", "go install"} {
		if !strings.Contains(install, way) {
			t.Errorf("README.md's Install does not show %q", way)
		}
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`).FindAllStringSubmatch(string(data), -1) {
		if _, err := os.Stat(filepath.FromSlash(m[1])); err != nil {
			t.Errorf("README.md links to %s, which does not exist", m[1])
		}
	}
}
