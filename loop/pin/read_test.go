package pin

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAllSized: the size from stat is a hint; a file that grew or shrank
// since reads whole, up to the limit, as io.ReadAll of a LimitReader did.
func TestReadAllSized(t *testing.T) {
	content := strings.Repeat("0123456789", 100)
	for _, c := range []struct {
		name        string
		size, limit int64
		want        string
	}{
		{"exact", 1000, 2000, content},
		{"grew", 10, 2000, content},
		{"shrank", 5000, 2000, content},
		{"no size", 0, 2000, content},
		{"negative size", -1, 2000, content},
		{"limit", 1000, 300, content[:300]},
		{"limit above size", 100, 300, content[:300]},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range []func() io.Reader{
				func() io.Reader { return bytes.NewReader([]byte(content)) },
				func() io.Reader { return iotest.OneByteReader(strings.NewReader(content)) },
				func() io.Reader { return iotest.DataErrReader(strings.NewReader(content)) },
			} {
				got, err := readAllSized(r(), c.size, c.limit)
				if err != nil || string(got) != c.want {
					t.Fatalf("got %d bytes, %v; want %d bytes", len(got), err, len(c.want))
				}
			}
		})
	}
	if _, err := readAllSized(iotest.ErrReader(iotest.ErrTimeout), 10, 100); err != iotest.ErrTimeout {
		t.Fatalf("error %v, want %v", err, iotest.ErrTimeout)
	}
}
