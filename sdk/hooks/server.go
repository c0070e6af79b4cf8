package hooks

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/signal"
)

// MaxRequest bounds a request; a context is a few kilobytes.
const MaxRequest = 4 << 20

// EnvKeepAlive is set to "1" in the environment of an executor hook-loop keeps
// alive: it then answers one request per line until stdin closes.
const EnvKeepAlive = "HOOK_LOOP_KEEPALIVE"

// ServeStdio answers one request read from stdin on stdout: the whole life of a
// `command` executor. Kept alive by hook-loop ($HOOK_LOOP_KEEPALIVE=1) it
// answers one request per line instead, until stdin closes. It returns the
// exit status to use (0: answers were written).
func ServeStdio(handler any) int {
	if os.Getenv(EnvKeepAlive) == "1" {
		return ServeLines(context.Background(), handler, os.Stdin, os.Stdout)
	}
	return ServeIO(context.Background(), handler, os.Stdin, os.Stdout)
}

// ServeLines answers newline-delimited requests, one line each, until in ends.
func ServeLines(ctx context.Context, handler any, in io.Reader, out io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), MaxRequest)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if _, err := out.Write(append(HandleRequest(ctx, handler, sc.Bytes()), '\n')); err != nil {
			return 1
		}
	}
	if sc.Err() != nil {
		return 1
	}
	return 0
}

// ServeIO is ServeStdio on explicit streams.
func ServeIO(ctx context.Context, handler any, in io.Reader, out io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	body, err := io.ReadAll(io.LimitReader(in, MaxRequest))
	if err != nil {
		return 1
	}
	resp := HandleRequest(ctx, handler, body)
	if _, err := out.Write(append(resp, '\n')); err != nil {
		return 1
	}
	return 0
}
