package pin

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile reads the gallery's plan_execute loop as a hook reads its
// loop file.
func BenchmarkReadFile(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "gallery", "plan_execute.json"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "hook-loop.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if f := ReadFile(path); f.Err != nil || len(f.Data) != len(data) {
			b.Fatalf("read %d bytes, %v", len(f.Data), f.Err)
		}
	}
}
