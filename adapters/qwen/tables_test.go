package qwen

import "testing"

// The name tables are slices, not maps: nothing else catches a name listed twice.
func TestTablesListEachNameOnce(t *testing.T) {
	if err := tools.Check(); err != nil {
		t.Errorf("tools: %v", err)
	}
}
