package opencode

import (
	"slices"
	"testing"
)

// TestNativeEventsAreTheMappedOnes keeps the registry's list and the decoder's
// table from drifting apart.
func TestNativeEventsAreTheMappedOnes(t *testing.T) {
	var mapped []string
	for _, n := range nativeToCanonical {
		mapped = append(mapped, n[0])
	}
	got := slices.Clone(NativeEvents)
	slices.Sort(got)
	slices.Sort(mapped)
	if !slices.Equal(got, mapped) {
		t.Errorf("NativeEvents %v, mapped %v", got, mapped)
	}
}
