// Package follow reads a growing line-oriented file as it is appended to, the
// way `tail -F` does: complete lines only, and a file that is rotated, recreated
// or truncated is reopened and read again from its start.
package follow

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// DefaultInterval is how often the file is polled. Polling needs no extra
// dependency, works on every file system (network and container mounts included)
// and a fifth of a second is below what a person watching notices.
const DefaultInterval = 150 * time.Millisecond

// Follower hands out the complete lines appended to a file. It is not safe for
// concurrent use.
type Follower struct {
	Path     string
	Interval time.Duration
	// OnReset, when set, is called when the file was replaced or truncated and is
	// being read again from its start.
	OnReset func()

	f       *os.File
	fi      os.FileInfo
	offset  int64  // bytes of f consumed into complete lines or partial
	partial []byte // an unterminated last line, kept until its newline arrives
}

// New follows path from offset (0: the start; use Size to begin at the end).
func New(path string, offset int64) *Follower {
	return &Follower{Path: path, Interval: DefaultInterval, offset: offset}
}

// Size is the file's current size, 0 when it does not exist.
func Size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Offset is the byte offset just after the last complete line handed out.
func (fw *Follower) Offset() int64 { return fw.offset - int64(len(fw.partial)) }

// Close releases the open file.
func (fw *Follower) Close() error {
	if fw.f == nil {
		return nil
	}
	err := fw.f.Close()
	fw.f, fw.fi = nil, nil
	return err
}

// Open opens the file now, so that a file replaced before the first Poll is
// noticed as replaced. A missing file is not an error.
func (fw *Follower) Open() error { return fw.reopenIfReplaced() }

// Poll reads what was appended since the last call and calls fn for each new
// complete line (without its newline; valid only during the call). A missing file
// has no lines yet.
func (fw *Follower) Poll(fn func(line []byte) error) error {
	if err := fw.reopenIfReplaced(); err != nil {
		return err
	}
	if fw.f == nil {
		return nil
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := fw.f.ReadAt(buf, fw.offset)
		if n > 0 {
			fw.offset += int64(n)
			if ferr := fw.feed(buf[:n], fn); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) || n == 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// feed splits data into lines, completing a partial line left by the last read.
func (fw *Follower) feed(data []byte, fn func([]byte) error) error {
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			fw.partial = append(fw.partial, data...)
			return nil
		}
		line := data[:i]
		if len(fw.partial) > 0 {
			line = append(fw.partial, line...)
		}
		fw.partial = fw.partial[:0]
		if err := fn(line); err != nil {
			return err
		}
		data = data[i+1:]
	}
}

// reopenIfReplaced opens the file when it appears, and reopens it from the start
// when the path now names another file (rotated, recreated) or the file shrank
// below what was read (truncated).
func (fw *Follower) reopenIfReplaced() error {
	fi, err := os.Stat(fw.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // keep reading the old file, if any, until a new one appears
	}
	if err != nil {
		return err
	}
	reset := false
	switch {
	case fw.f == nil:
		reset = fw.fi != nil || fi.Size() < fw.offset
	case !os.SameFile(fi, fw.fi):
		reset = true
	case fi.Size() < fw.offset:
		reset = true
	}
	if fw.f != nil && !reset {
		return nil
	}
	if fw.f != nil {
		// Lines a writer adds to the old file after the rotation go to a file
		// nobody names any more; hook-loop reopens the log for every append.
		fw.f.Close()
	}
	f, err := os.Open(fw.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	ofi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	fw.f, fw.fi = f, ofi
	if reset {
		fw.offset, fw.partial = 0, fw.partial[:0]
		if fw.OnReset != nil {
			fw.OnReset()
		}
	}
	return nil
}

// Run polls until ctx ends, calling fn for each new line. It returns nil when
// ctx is cancelled.
func (fw *Follower) Run(ctx context.Context, fn func(line []byte) error) error {
	defer fw.Close()
	interval := fw.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := fw.Poll(fn); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
