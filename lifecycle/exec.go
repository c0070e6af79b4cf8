package lifecycle

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/project/basedir"
)

// maxAnswer bounds what an executor may answer; decisions are a few hundred bytes.
const maxAnswer = 1 << 20

// limitedBuffer keeps the first max bytes written and drops the rest, so a chatty
// executor can neither block on a full pipe nor grow hook-loop's memory.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

// runCommand runs a command, path or module executor afresh: the request on
// stdin, the answer on stdout. On ctx's end the whole process group is killed,
// so a hanging hook (or a child it started) cannot hold hook-loop past the
// deadline. env is added to hook-loop's own environment.
func runCommand(ctx context.Context, e Entry, env []string, req []byte) ([]byte, error) {
	argv := e.Argv()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = e.Dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdin = bytes.NewReader(req)
	stdout := &limitedBuffer{max: maxAnswer}
	stderr := &limitedBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	killGroupOnCancel(cmd)
	// A grandchild holding the pipes open must not outlive the deadline either.
	cmd.WaitDelay = 500 * time.Millisecond
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("command %s killed", argv[0])
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			msg := firstLine(stderr.buf.String())
			if msg != "" {
				return nil, fmt.Errorf("command exited with status %d: %s", ee.ExitCode(), msg)
			}
			return nil, fmt.Errorf("command exited with status %d", ee.ExitCode())
		}
		return nil, fmt.Errorf("cannot run command: %v", err)
	}
	if len(bytes.TrimSpace(stdout.buf.Bytes())) == 0 {
		if msg := firstLine(stderr.buf.String()); msg != "" {
			return nil, fmt.Errorf("%v (stderr: %s)", errEmpty, msg)
		}
		return nil, errEmpty
	}
	return stdout.buf.Bytes(), nil
}

// httpClient never follows a redirect (it would carry the token elsewhere) and
// never goes through a proxy (the URL rules are about where the data goes).
var httpClient = &http.Client{
	Transport: &http.Transport{Proxy: nil, MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second},
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// postJSON sends the request to a url executor. The bearer token is read from
// the variable tokenEnv names now, and appears nowhere but in the header.
func postJSON(ctx context.Context, e Entry, req []byte, getenv func(string) string) ([]byte, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(req))
	if err != nil {
		return nil, fmt.Errorf("build request: %v", err)
	}
	for k, v := range e.Headers {
		hr.Header.Set(k, v)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if e.TokenEnv != "" {
		tok := getenv(e.TokenEnv)
		if tok == "" {
			return nil, fmt.Errorf("tokenEnv variable %s is not set; not calling %s without its token", e.TokenEnv, e.URL)
		}
		hr.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := httpClient.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("unreachable: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("read answer: %v", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return body, fmt.Errorf("HTTP status %d: %s", resp.StatusCode, snippet(body))
	}
	return body, nil
}

// procEnv is what an executor process gets beside hook-loop's environment: a
// Python executor finds the SDK hook-loop ships (and a module entry its module
// beside the declaration) on PYTHONPATH.
func (r *Runner) procEnv(e Entry) ([]string, error) {
	if !e.python() {
		return nil, nil
	}
	sdk, err := pythonSDKDir(r.cacheDir())
	if err != nil {
		return nil, err
	}
	parts := []string{sdk}
	if e.Kind() == "module" {
		parts = append(parts, e.Dir)
	}
	if old := r.getenv()("PYTHONPATH"); old != "" {
		parts = append(parts, old)
	}
	return []string{"PYTHONPATH=" + strings.Join(parts, string(os.PathListSeparator))}, nil
}

func (r *Runner) getenv() func(string) string {
	if r.Getenv != nil {
		return r.Getenv
	}
	return os.Getenv
}

// cacheDir reads XDG_CACHE_HOME through getenv first: the runner's
// environment, not necessarily the process's, which basedir reads.
func (r *Runner) cacheDir() string {
	if r.CacheDir != "" {
		return r.CacheDir
	}
	if d := r.getenv()("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return d
	}
	return basedir.CacheHome()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	return line
}
