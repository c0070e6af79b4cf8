package hooks_test

import (
	"reflect"
	"testing"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// DesignAliases was a map; Canonical and DesignAliases() must keep each entry.
func TestDesignAliasesKeepEveryEntry(t *testing.T) {
	want := map[string]string{"work_item_start": hooks.PointLoopStart, "session_spawn": hooks.PointSessionStart, "work_item_complete": hooks.PointLoopComplete}
	if got := hooks.DesignAliases(); !reflect.DeepEqual(got, want) {
		t.Errorf("DesignAliases() = %v, want %v", got, want)
	}
	for design, point := range want {
		if got, ok := hooks.Canonical(design); !ok || got != point {
			t.Errorf("Canonical(%q) = %q, %v; want %q", design, got, ok, point)
		}
	}
	if got, ok := hooks.Canonical("work_item"); ok {
		t.Errorf(`Canonical("work_item") = %q, true`, got)
	}
}
