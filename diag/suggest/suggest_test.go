package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"status", "status", 0},
		{"stauts", "status", 1}, {"kitten", "sitting", 3}, {"évent", "event", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	cmds := []string{"validate", "graph", "simulate", "status", "log"}
	for name, want := range map[string]string{
		"stauts": "status", "valdate": "validate", "lgo": "log",
		"status": "", "zzzzzz": "", "x": "",
	} {
		if got := Closest(name, cmds); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
	if got := Hint("grpah", cmds); got != " (did you mean graph?)" {
		t.Errorf("Hint = %q", got)
	}
}
