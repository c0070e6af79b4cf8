package opencode

import (
	"slices"
	"testing"
)

// The name tables are slices, not maps: nothing else catches a name listed twice.
func TestTablesListEachNameOnce(t *testing.T) {
	if err := nativeToCanonical.Check(); err != nil {
		t.Errorf("nativeToCanonical: %v", err)
	}
	if err := slices.Concat(toolNames, prototypeTools).Check(); err != nil {
		t.Errorf("toolNames, prototypeTools: %v", err)
	}
}
