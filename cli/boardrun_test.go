package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// testBoard is `hook-loop board` running in-process for a test.
type testBoard struct {
	base, token string
	stop        func()
}

// startBoard runs the board with o (its streams, ctx and ready set here)
// until the returned board's stop, which fails t if the board failed.
func startBoard(t *testing.T, ctx context.Context, o *BoardOptions) *testBoard {
	t.Helper()
	runCtx, cancel := context.WithCancel(ctx)
	ready := make(chan string, 1)
	errOut := &syncBuffer{}
	o.IO, o.ctx, o.ready = &IOStreams{Out: &syncBuffer{}, ErrOut: errOut}, runCtx, func(u string) { ready <- u }
	if o.addr == "" {
		o.addr = "127.0.0.1:0"
	}
	done := make(chan error, 1)
	go func() { done <- runBoard(o) }()
	var boardURL string
	select {
	case boardURL = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("board: %v\n%s", err, errOut.String())
	case <-ctx.Done():
		cancel()
		t.Fatal("the board did not start")
	}
	u, _ := url.Parse(boardURL)
	return &testBoard{base: "http://" + u.Host, token: u.Query().Get("token"), stop: func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("board: %v", err)
		}
	}}
}

// get decodes the JSON answer of GET path into v.
func (b *testBoard) get(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := http.Get(b.base + path + "?token=" + b.token)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// post presses a button: POST path from the board's own page.
func (b *testBoard) post(t *testing.T, path string) {
	t.Helper()
	req, _ := http.NewRequest("POST", b.base+path, nil)
	req.Header.Set("X-Board-Token", b.token)
	req.Header.Set("Origin", b.base)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST %s: %s", path, resp.Status)
	}
}

// events opens the board's event stream; the returned func waits for a line
// starting with prefix.
func (b *testBoard) events(t *testing.T, ctx context.Context) func(prefix string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", b.base+"/api/events?token="+b.token, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	lines := bufio.NewScanner(resp.Body)
	return func(prefix string) {
		t.Helper()
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), prefix) {
				return
			}
		}
		t.Fatalf("event stream ended before %q: %v", prefix, lines.Err())
	}
}
