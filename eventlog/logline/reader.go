package logline

import (
	"bufio"
	"errors"
	"io"
)

// Reader splits a byte stream into lines. It keeps memory bounded: a line
// longer than MaxBytes is consumed without being held.
type Reader struct {
	r    *bufio.Reader
	buf  []byte
	read int64 // bytes consumed so far
}

// NewReader reads the lines of r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Consumed is how many bytes of the stream the lines returned so far took,
// newlines included.
func (lr *Reader) Consumed() int64 { return lr.read }

// Next returns the next line without its newline; terminated is false for the
// final bytes of the stream when they do not end with '\n' (a torn tail); tooLong
// marks a line over MaxBytes (line is then nil). size counts the consumed bytes
// including the newline. At the end of the stream it returns io.EOF. The line
// is valid until the next call.
func (lr *Reader) Next() (line []byte, terminated, tooLong bool, size int, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, rerr := lr.r.ReadSlice('\n')
		size += len(chunk)
		if !tooLong {
			if len(lr.buf)+len(chunk) > MaxBytes+1 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else if rerr == nil && len(lr.buf) == 0 {
				// Common case: the whole line is in the reader's buffer.
				lr.read += int64(size)
				return chunk[:len(chunk)-1], true, false, size, nil
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case rerr == nil:
			lr.read += int64(size)
			if tooLong {
				return nil, true, true, size, nil
			}
			return lr.buf[:len(lr.buf)-1], true, false, size, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case errors.Is(rerr, io.EOF):
			lr.read += int64(size)
			if size == 0 {
				return nil, false, false, 0, io.EOF
			}
			if tooLong {
				return nil, false, true, size, nil
			}
			return lr.buf, false, false, size, nil
		default:
			return nil, false, false, size, rerr
		}
	}
}
