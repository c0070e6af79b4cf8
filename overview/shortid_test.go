package overview

import "testing"

func TestShortIDs(t *testing.T) {
	ids := []string{
		"019a2b6c-7f3e-7c21-9d55-2c1f0e8a4b10",
		"019a2b6c-7f3e-7c21-9d55-8d0be31c77f2",
		"019a2b6c-7f3e-7c21-9d55-ffff0e8a4b10", // shares 9 tail characters with the first
		"short",
		"twelve-chars",
	}
	got := ShortIDs(ids)
	want := map[string]string{
		ids[0]: "…1f0e8a4b10",
		ids[1]: "…e31c77f2",
		ids[2]: "…ff0e8a4b10",
		ids[3]: "short",
		ids[4]: "twelve-chars",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s → %q, want %q", id, got[id], w)
		}
	}
}
