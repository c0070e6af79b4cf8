package install

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// findCodex returns the codex executable: explicit, else `codex` on PATH.
func findCodex(explicit string) (string, error) {
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err != nil {
			return "", fmt.Errorf("--codex-bin %s: %w", explicit, err)
		}
		return filepath.Abs(p)
	}
	p, err := exec.LookPath("codex")
	if err != nil {
		return "", errors.New("codex is not on PATH: install it (npm i -g @openai/codex) or give --codex-bin")
	}
	return filepath.Abs(p)
}

// CodexHook is one handler as `codex app-server` lists it (hooks/list).
type CodexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Source      string `json:"source"`
	Enabled     bool   `json:"enabled"`
	IsManaged   bool   `json:"isManaged"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"` // trusted, untrusted, modified
}

// configEdit is one config/batchWrite edit; a nil Value with mergeStrategy
// "replace" deletes the key.
type configEdit struct {
	KeyPath       string `json:"keyPath"`
	Value         any    `json:"value"`
	MergeStrategy string `json:"mergeStrategy"`
}

// appServer talks JSON-RPC 2.0 (one object per line) to `codex app-server`
// over stdio: the same calls Codex's own /hooks screen makes, so hook-loop never
// computes Codex's hashes itself.
type appServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	nextID int
	mu     sync.Mutex
	done   chan struct{}
	stderr *tailBuffer
}

// tailBuffer keeps the last max bytes written, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// startAppServer starts `codex app-server` with CODEX_HOME set to home and
// performs the initialize handshake.
func startAppServer(ctx context.Context, codexBin, home string) (*appServer, error) {
	// Codex refuses to start with a CODEX_HOME that does not exist.
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, fmt.Errorf("create Codex home %s: %w", home, err)
	}
	cmd := exec.Command(codexBin, "app-server")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &tailBuffer{max: 4096}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s app-server: %w", codexBin, err)
	}
	a := &appServer{cmd: cmd, stdin: stdin, lines: make(chan []byte, 64), done: make(chan struct{}), stderr: stderr}
	go func() {
		defer close(a.done)
		defer close(a.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			a.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	if _, err := a.Call(ctx, "initialize", map[string]any{"clientInfo": map[string]any{
		"name": "hook-loop", "title": "hook-loop", "version": "1"}}); err != nil {
		a.Close()
		return nil, err
	}
	if err := a.send(map[string]any{"jsonrpc": "2.0", "method": "initialized"}); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *appServer) send(msg any) error {
	b, _ := json.Marshal(msg)
	_, err := a.stdin.Write(append(b, '\n'))
	return err
}

// Call sends a request and waits for its answer, skipping notifications.
func (a *appServer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextID++
	id := a.nextID
	if err := a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("codex app-server %s: %w", method, err)
	}
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("codex app-server %s: %w", method, ctx.Err())
		case <-timer.C:
			return nil, fmt.Errorf("codex app-server %s: no answer in 30s", method)
		case line, ok := <-a.lines:
			if !ok {
				msg := fmt.Sprintf("codex app-server %s: the server exited", method)
				if e := lastLine(a.stderr.String()); e != "" {
					msg += ": " + e
				}
				return nil, errors.New(msg)
			}
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id {
				continue
			}
			if len(msg.Error) > 0 && string(msg.Error) != "null" {
				return nil, fmt.Errorf("codex app-server %s failed: %s", method, msg.Error)
			}
			return msg.Result, nil
		}
	}
}

// ListHooks returns every hook Codex sees for cwd, with its trust state, plus
// the warnings and errors Codex reports about hook files.
func (a *appServer) ListHooks(ctx context.Context, cwd string) ([]CodexHook, []string, error) {
	raw, err := a.Call(ctx, "hooks/list", map[string]any{"cwds": []string{cwd}})
	if err != nil {
		return nil, nil, err
	}
	var res struct {
		Data []struct {
			Hooks    []CodexHook       `json:"hooks"`
			Warnings []json.RawMessage `json:"warnings"`
			Errors   []json.RawMessage `json:"errors"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, nil, fmt.Errorf("codex app-server hooks/list: unexpected answer: %w", err)
	}
	var hooks []CodexHook
	var notes []string
	for _, d := range res.Data {
		hooks = append(hooks, d.Hooks...)
		for _, w := range append(d.Warnings, d.Errors...) {
			notes = append(notes, strings.Trim(string(w), `"`))
		}
	}
	return hooks, notes, nil
}

// BatchWrite applies config edits to $CODEX_HOME/config.toml through Codex.
func (a *appServer) BatchWrite(ctx context.Context, edits []configEdit) error {
	if len(edits) == 0 {
		return nil
	}
	_, err := a.Call(ctx, "config/batchWrite", map[string]any{"edits": edits})
	return err
}

// Close stops the server.
func (a *appServer) Close() {
	a.stdin.Close()
	select {
	case <-a.done:
	case <-time.After(2 * time.Second):
		a.cmd.Process.Kill()
	}
	a.cmd.Wait()
}

// tomlKey quotes a key for a config/batchWrite keyPath.
func tomlKey(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// trustResult is what TrustCodex did.
type trustResult struct {
	ProjectTrustAdded bool     // the project was not trusted before
	TrustedKeys       []string // hooks.state keys hook-loop trusted
	AlreadyTrusted    []string
}

// TrustCodex makes Codex run hook-loop's hooks without
// --dangerously-bypass-hook-trust: for a project install it marks the project
// trusted (else Codex does not even load <project>/.codex/hooks.json), then it
// trusts the current hash of exactly the handlers in hooksPath whose command is
// hook-loop's. Foreign hooks keep their trust state.
func TrustCodex(ctx context.Context, codexBin, home, projectDir, hooksPath string, trustProject bool) (trustResult, error) {
	var res trustResult
	srv, err := startAppServer(ctx, codexBin, home)
	if err != nil {
		return res, err
	}
	defer srv.Close()
	if trustProject {
		trusted, err := projectTrusted(home, projectDir)
		if err != nil {
			return res, err
		}
		if !trusted {
			if err := srv.BatchWrite(ctx, []configEdit{{
				KeyPath: "projects." + tomlKey(projectDir) + ".trust_level", Value: "trusted", MergeStrategy: "upsert",
			}}); err != nil {
				return res, err
			}
			res.ProjectTrustAdded = true
		}
	}
	hooks, _, err := srv.ListHooks(ctx, projectDir)
	if err != nil {
		return res, err
	}
	var edits []configEdit
	for _, h := range ours(hooks, hooksPath) {
		if h.TrustStatus == "trusted" {
			res.AlreadyTrusted = append(res.AlreadyTrusted, h.Key)
			continue
		}
		edits = append(edits, configEdit{KeyPath: "hooks.state." + tomlKey(h.Key) + ".trusted_hash", Value: h.CurrentHash, MergeStrategy: "upsert"})
		res.TrustedKeys = append(res.TrustedKeys, h.Key)
	}
	if len(edits)+len(res.AlreadyTrusted) == 0 {
		return res, fmt.Errorf("codex does not list hook-loop's hooks from %s for %s (is the project trusted and the file valid?)", hooksPath, projectDir)
	}
	if err := srv.BatchWrite(ctx, edits); err != nil {
		return res, err
	}
	// Check: every one of ours must now be trusted.
	hooks, _, err = srv.ListHooks(ctx, projectDir)
	if err != nil {
		return res, err
	}
	for _, h := range ours(hooks, hooksPath) {
		if h.TrustStatus != "trusted" {
			return res, fmt.Errorf("codex still reports %s as %s after trusting it", h.Key, h.TrustStatus)
		}
	}
	return res, nil
}

// untrustCodex removes the trust entries of hook-loop's handlers in hooksPath
// (call it before removing the hooks: the keys come from hooks/list) and, when
// asked, the project's trust entry.
func untrustCodex(ctx context.Context, codexBin, home, projectDir, hooksPath string, untrustProject bool) ([]string, error) {
	srv, err := startAppServer(ctx, codexBin, home)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	hooks, _, err := srv.ListHooks(ctx, projectDir)
	if err != nil {
		return nil, err
	}
	var edits []configEdit
	var keys []string
	for _, h := range ours(hooks, hooksPath) {
		edits = append(edits, configEdit{KeyPath: "hooks.state." + tomlKey(h.Key), Value: nil, MergeStrategy: "replace"})
		keys = append(keys, h.Key)
	}
	if untrustProject {
		edits = append(edits, configEdit{KeyPath: "projects." + tomlKey(projectDir), Value: nil, MergeStrategy: "replace"})
	}
	return keys, srv.BatchWrite(ctx, edits)
}

func ours(hooks []CodexHook, hooksPath string) []CodexHook {
	var out []CodexHook
	for _, h := range hooks {
		if isHookCommand(h.Command) && samePath(h.SourcePath, hooksPath) {
			out = append(out, h)
		}
	}
	return out
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
