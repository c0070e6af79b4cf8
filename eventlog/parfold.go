package eventlog

import (
	"bytes"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// A cold rebuild (a lost or stale index) folds the whole log. Hashing, checking
// the MAC of and parsing each line do not depend on the lines before it, so
// foldParallel does them on every CPU in chunks, and folds the prepared lines in
// log order on the calling goroutine. A few chunks are in flight at a time, so
// memory stays bounded however long the log.
const foldChunkBytes = 1 << 20

// parallelFoldBytes is the least a fold must read to go parallel: below it one
// goroutine is as quick. A variable for tests.
var parallelFoldBytes int64 = 4 << 20

type foldChunk struct {
	buf   []byte
	lines []preparedLine
	done  chan struct{}
}

// foldParallel folds the complete lines of f from st.hdr.Offset up to size,
// stopping early (for the sequential reader to go on) at a line longer than a
// chunk, at the torn end, or at the deadline (not zero).
func (l *Log) foldParallel(st *state, f *os.File, size int64, deadline time.Time) error {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 {
		return nil
	}
	work := make(chan *foldChunk)
	order := make(chan *foldChunk, workers+1)
	var readErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := l.lineMAC()
			for c := range work {
				for i := range c.lines {
					if p := &c.lines[i]; !p.tooLong {
						l.prepare(p, m, true)
					}
				}
				close(c.done)
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(work)
		for pos := st.hdr.Offset; pos < size && !expired(deadline); {
			n := min(int64(foldChunkBytes), size-pos)
			buf := make([]byte, n)
			if _, err := f.ReadAt(buf, pos); err != nil && err != io.EOF {
				readErr = fmt.Errorf("read %s: %w", l.path, err)
				return
			}
			end := bytes.LastIndexByte(buf, '\n')
			if end < 0 {
				return
			}
			c := &foldChunk{buf: buf[:end+1], done: make(chan struct{})}
			c.lines = splitLines(c.buf)
			order <- c
			work <- c
			pos += int64(end + 1)
		}
	}()
	for c := range order {
		<-c.done
		for i := range c.lines {
			l.foldPrepared(st, &c.lines[i])
		}
		l.tailRead += int64(len(c.buf))
	}
	wg.Wait()
	return readErr
}

// splitLines cuts buf (ending in a newline) into its lines.
func splitLines(buf []byte) []preparedLine {
	lines := make([]preparedLine, 0, bytes.Count(buf, []byte{'\n'}))
	for len(buf) > 0 {
		nl := bytes.IndexByte(buf, '\n')
		p := preparedLine{line: buf[:nl], size: nl + 1}
		if nl > logline.MaxBytes {
			p.line, p.tooLong = nil, true
		}
		lines = append(lines, p)
		buf = buf[nl+1:]
	}
	return lines
}

// lineMAC is a MAC under the log's key for checking lines, nil without a key.
func (l *Log) lineMAC() hash.Hash {
	if l.key == nil {
		return nil
	}
	return l.key.mac.NewMAC()
}
