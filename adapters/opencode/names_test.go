package opencode

import (
	"slices"
	"testing"
)

// TestNativeEventsAreTheMappedOnes keeps the registry's list and the decoder's
// map from drifting apart.
func TestNativeEventsAreTheMappedOnes(t *testing.T) {
	var mapped []string
	for n := range nativeToCanonical {
		mapped = append(mapped, n)
	}
	got := slices.Clone(NativeEvents)
	slices.Sort(got)
	slices.Sort(mapped)
	if !slices.Equal(got, mapped) {
		t.Errorf("NativeEvents %v, mapped %v", got, mapped)
	}
}
