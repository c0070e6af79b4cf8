package harness

import "testing"

func TestTable(t *testing.T) {
	tb := Table{{"a", "A"}, {"b", "B"}}
	if got, ok := tb.Lookup("b"); !ok || got != "B" {
		t.Errorf(`Lookup("b") = %q, %v`, got, ok)
	}
	if got, ok := tb.Lookup("c"); ok || got != "" {
		t.Errorf(`Lookup("c") = %q, %v`, got, ok)
	}
	if err := tb.Check(); err != nil {
		t.Error(err)
	}
	if err := append(tb, [2]string{"a", "X"}).Check(); err == nil {
		t.Error("Check passed a name listed twice")
	}
}

// mcpPathKey was a map; these are its entries.
func TestMCPPathKeyKeepsEveryEntry(t *testing.T) {
	for _, k := range []string{"path", "file_path", "filePath", "target", "destination", "source", "paths", "file", "uri", "cwd"} {
		if !mcpPathKey(k) {
			t.Errorf("mcpPathKey(%q) = false", k)
		}
	}
	if mcpPathKey("content") {
		t.Error(`mcpPathKey("content") = true`)
	}
}
