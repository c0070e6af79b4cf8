package eventlog

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRCTableIsIEEE: the written-out table is hash/crc32's slicing-by-8
// table for the IEEE polynomial.
func TestCRCTableIsIEEE(t *testing.T) {
	base := crc32.MakeTable(crc32.IEEE)
	for i := range 256 {
		crc := base[i]
		if crcTable8[0][i] != crc {
			t.Fatalf("table 0 entry %d: %#x, want %#x", i, crcTable8[0][i], crc)
		}
		for j := 1; j < 8; j++ {
			crc = base[crc&0xFF] ^ (crc >> 8)
			if crcTable8[j][i] != crc {
				t.Fatalf("table %d entry %d: %#x, want %#x", j, i, crcTable8[j][i], crc)
			}
		}
	}
}

// TestCRCIsChecksumIEEE: crcIEEE is crc32.ChecksumIEEE, at every length
// around the 8-byte steps and on large bodies.
func TestCRCIsChecksumIEEE(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 70000)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	for n := 0; n <= 300; n++ {
		for _, off := range []int{0, 1, 3, 7} {
			p := buf[off : off+n]
			if got, want := crcIEEE(p), crc32.ChecksumIEEE(p); got != want {
				t.Fatalf("%d bytes at %d: %#x, want %#x", n, off, got, want)
			}
		}
	}
	for _, n := range []int{4095, 4096, 16 << 10, 65537, len(buf)} {
		if got, want := crcIEEE(buf[:n]), crc32.ChecksumIEEE(buf[:n]); got != want {
			t.Fatalf("%d bytes: %#x, want %#x", n, got, want)
		}
	}
}

func FuzzCRC(f *testing.F) {
	f.Add([]byte("hook-loop"))
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := crcIEEE(p), crc32.ChecksumIEEE(p); got != want {
			t.Fatalf("%#x, want %#x", got, want)
		}
	})
}
