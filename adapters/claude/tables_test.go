package claude

import "testing"

// canonicalOf is the canonical event of a native one, "" when unknown.
func canonicalOf(native string) string {
	c, _ := nativeToCanonical.Lookup(native)
	return c
}

// The name tables are slices, not maps: nothing else catches a name listed twice.
func TestTablesListEachNameOnce(t *testing.T) {
	if err := nativeToCanonical.Check(); err != nil {
		t.Errorf("nativeToCanonical: %v", err)
	}
}
