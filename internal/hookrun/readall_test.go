package hookrun

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAllAsIoReadAll: readAll reads what io.ReadAll of a LimitReader
// does, for inputs below, at and past its first buffer and its limit, in
// one read or byte by byte, and passes on a read error.
func TestReadAllAsIoReadAll(t *testing.T) {
	for _, n := range []int{0, 1, 482, inputBuffer - 1, inputBuffer, inputBuffer + 1, 5 * inputBuffer} {
		content := strings.Repeat("x", n)
		for _, limit := range []int64{int64(n) + 1, int64(n), int64(n/2) + 1, 10} {
			for name, r := range map[string]func() io.Reader{
				"whole":    func() io.Reader { return strings.NewReader(content) },
				"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(content)) },
				"data+EOF": func() io.Reader { return iotest.DataErrReader(strings.NewReader(content)) },
			} {
				want, _ := io.ReadAll(io.LimitReader(r(), limit))
				got, err := readAll(r(), limit)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%d bytes, limit %d, %s: got %d bytes, %v; want %d", n, limit, name, len(got), err, len(want))
				}
			}
		}
	}
	if _, err := readAll(iotest.ErrReader(iotest.ErrTimeout), 100); err != iotest.ErrTimeout {
		t.Fatalf("error %v, want %v", err, iotest.ErrTimeout)
	}
}
