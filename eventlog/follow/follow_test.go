package follow

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func poll(t *testing.T, fw *Follower) []string {
	t.Helper()
	var got []string
	if err := fw.Poll(func(l []byte) error { got = append(got, string(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestPollCompleteLinesOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	fw := New(path, 0)
	defer fw.Close()
	if got := poll(t, fw); len(got) != 0 {
		t.Fatalf("missing file gave %q", got)
	}
	appendTo(t, path, "a\nb")
	if got := poll(t, fw); strings.Join(got, "|") != "a" {
		t.Fatalf("got %q, want only the complete line a", got)
	}
	appendTo(t, path, "c\nd\n")
	if got := poll(t, fw); strings.Join(got, "|") != "bc|d" {
		t.Fatalf("got %q, want bc|d", got)
	}
	if fw.Offset() != int64(len("a\nbc\nd\n")) {
		t.Fatalf("offset %d", fw.Offset())
	}
}

func TestStartAtEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	appendTo(t, path, "old\n")
	fw := New(path, Size(path))
	defer fw.Close()
	appendTo(t, path, "new\n")
	if got := poll(t, fw); strings.Join(got, "|") != "new" {
		t.Fatalf("got %q", got)
	}
}

func TestRotationAndTruncation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	appendTo(t, path, "one\ntwo\n")
	fw := New(path, 0)
	resets := 0
	fw.OnReset = func() { resets++ }
	defer fw.Close()
	poll(t, fw)

	// Rotated: renamed away, a new file in its place.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, "fresh\n")
	if got := poll(t, fw); strings.Join(got, "|") != "fresh" || resets != 1 {
		t.Fatalf("after rotation got %q (resets %d), want fresh", got, resets)
	}

	// Truncated in place and written again, shorter than before.
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, "x\n")
	if got := poll(t, fw); strings.Join(got, "|") != "x" || resets != 2 {
		t.Fatalf("after truncation got %q (resets %d), want x", got, resets)
	}

	// Removed, then recreated.
	os.Remove(path)
	if got := poll(t, fw); len(got) != 0 {
		t.Fatalf("removed file gave %q", got)
	}
	appendTo(t, path, "again\n")
	if got := poll(t, fw); strings.Join(got, "|") != "again" {
		t.Fatalf("after recreation got %q", got)
	}
}

func TestRunSeesAppendsFromAnotherGoroutine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	fw := New(path, 0)
	fw.Interval = 10 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lines := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		done <- fw.Run(ctx, func(l []byte) error { lines <- string(l); return nil })
	}()
	for _, want := range []string{"first", "second"} {
		appendTo(t, path, want+"\n")
		select {
		case got := <-lines:
			if got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		case <-ctx.Done():
			t.Fatalf("%q never arrived", want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
}

func TestReplacedBeforeFirstPoll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	appendTo(t, path, "a long first line\n")
	fw := New(path, Size(path))
	defer fw.Close()
	if err := fw.Open(); err != nil {
		t.Fatal(err)
	}
	os.Rename(path, path+".1")
	appendTo(t, path, "new\n")
	if got := poll(t, fw); strings.Join(got, "|") != "new" {
		t.Fatalf("got %q, want the new file's line", got)
	}
}
