package pi

import "testing"

// The name tables are slices, not maps: nothing else catches a name listed twice.
func TestTablesListEachNameOnce(t *testing.T) {
	if err := nativeToCanonical.Check(); err != nil {
		t.Errorf("nativeToCanonical: %v", err)
	}
	if err := toolNames.Check(); err != nil {
		t.Errorf("toolNames: %v", err)
	}
}
