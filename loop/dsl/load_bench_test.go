package dsl

import "testing"

// BenchmarkParse: every hook event loads the DSL, so parsing is on the hot path
// (DESIGN.md: a few milliseconds per event in all).
func BenchmarkParse(b *testing.B) {
	data := []byte(baseDSL)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse("bench.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseTrusted: how a hook reads a session's pinned loop.
func BenchmarkParseTrusted(b *testing.B) {
	data := []byte(baseDSL)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseTrusted("bench.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
