package lifecycle_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/sdk/hooks"
	"github.com/hook-loop/hook-loop/sdk/hooks/hookshttp"
)

var facts = hooks.Facts{LoopID: "demo", SessionID: "sess-1", Harness: "codex", Cwd: "/tmp/project", State: "planning"}

func runner(t *testing.T, entries ...lifecycle.Entry) *lifecycle.Runner {
	t.Helper()
	r, err := lifecycle.NewRunner(entries...)
	if err != nil {
		t.Fatalf("NewRunner: %v", err)
	}
	return r
}

func types(recs []engine.LifecycleRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Type)
	}
	return out
}

func only(t *testing.T, recs []engine.LifecycleRecord, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range recs {
		if r.Type == typ {
			out = append(out, r.Payload)
		}
	}
	return out
}

// httpExecutor serves handler on 127.0.0.1 with the SDK's own server.
func httpExecutor(t *testing.T, handler any, opts hookshttp.ServerOptions) string {
	t.Helper()
	srv := httptest.NewServer(hookshttp.NewServer(handler, opts))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func TestDeclarationOrderAndDecisionVisibility(t *testing.T) {
	rules := example(t, "house-rules")
	r := runner(t,
		lifecycle.Entry{Name: "house-rules", Command: []string{rules}, With: map[string]any{"rules": "RULES"}},
		lifecycle.Entry{Name: "b", Command: self("tag"), With: map[string]any{"tag": "b"}},
		lifecycle.Entry{Name: "c", URL: httpExecutor(t, tagger{}, hookshttp.ServerOptions{}), With: map[string]any{"tag": "c"}},
		lifecycle.Entry{Name: "d", Handler: tagger{}, With: map[string]any{"tag": "d"}},
	)
	c := hooks.NewSessionStart(facts, "startup", "loop text")
	recs := r.Fire(context.Background(), hooks.PointSessionStart, c)

	if want := "RULES\n\nloop text|b|c|d"; c.Context != want {
		t.Errorf("context = %q, want %q", c.Context, want)
	}
	decided := only(t, recs, lifecycle.RecordDecided)
	if len(decided) != 4 || len(recs) != 4 {
		t.Fatalf("records = %v, want four hooks.decided", recs)
	}
	// Each executor saw the one before it: the recorded values grow in order.
	wantSeq := []struct{ hook, context string }{
		{"house-rules", "RULES\n\nloop text"},
		{"b", "RULES\n\nloop text|b"},
		{"c", "RULES\n\nloop text|b|c"},
		{"d", "RULES\n\nloop text|b|c|d"},
	}
	for i, w := range wantSeq {
		d := decided[i]
		if d["hook"] != w.hook || d["point"] != "session_start" {
			t.Errorf("decided[%d] = %v, want hook %s", i, d, w.hook)
		}
		if got := d["fields"].(map[string]any); !reflect.DeepEqual(got, map[string]any{"context": w.context}) {
			t.Errorf("decided[%d].fields = %v, want context %q", i, got, w.context)
		}
	}
	if !c.Proceed {
		t.Error("proceed changed though no hook set it")
	}
}

func TestLastDecisionStands(t *testing.T) {
	r := runner(t,
		lifecycle.Entry{Name: "no", Handler: tagger{}, With: map[string]any{"proceed": false, "reason": "first says no"}},
		lifecycle.Entry{Name: "yes", Handler: tagger{}, With: map[string]any{"proceed": true, "reason": "second says yes"}},
	)
	c := hooks.NewLoopStart(facts)
	recs := r.Fire(context.Background(), hooks.PointLoopStart, c)
	if !c.Proceed || c.Reason != "second says yes" {
		t.Errorf("proceed=%v reason=%q, want the last hook's true", c.Proceed, c.Reason)
	}
	if got := types(recs); !reflect.DeepEqual(got, []string{"hooks.decided", "hooks.decided"}) {
		t.Errorf("records = %v: a reversed refusal is not hooks.refused", got)
	}
}

// Every way an executor can fail is that hook's failure: recorded, nothing of its
// answer applied, and the next hook still runs.
func TestFailureModes(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + closed.Addr().String() + "/"
	closed.Close()

	status500 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "database on fire", http.StatusInternalServerError)
	}))
	defer status500.Close()
	httpBadID := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"jsonrpc":"2.0","id":"x","result":{"context":"hijack"}}`)
	}))
	defer httpBadID.Close()

	cases := []struct {
		name  string
		entry lifecycle.Entry
		why   string
	}{
		{"wrong type", lifecycle.Entry{Command: self("wrong-type")}, `decision "proceed": expected true or false, got "yes"`},
		{"error member", lifecycle.Entry{Command: self("error-member")}, "executor answered error -32000: roster service down"},
		{"mismatched id", lifecycle.Entry{Command: self("bad-id")}, "does not match request id"},
		{"not json", lifecycle.Entry{Command: self("not-json")}, "answer is not a JSON-RPC object: hello, I am not JSON"},
		{"nonzero exit", lifecycle.Entry{Command: self("exit")}, "command exited with status 3: boom: cannot reach the roster"},
		{"empty answer", lifecycle.Entry{Command: self("silent")}, "executor wrote nothing on stdout"},
		{"missing program", lifecycle.Entry{Command: []string{filepath.Join(t.TempDir(), "nope")}}, "cannot run command"},
		{"timeout", lifecycle.Entry{Command: self("hang"), Timeout: 300 * time.Millisecond}, "timed out after 300ms"},
		{"non-2xx", lifecycle.Entry{URL: status500.URL + "/"}, "HTTP status 500: database on fire"},
		{"http mismatched id", lifecycle.Entry{URL: httpBadID.URL + "/"}, `answer id "x" does not match request id`},
		{"unreachable", lifecycle.Entry{URL: deadURL}, "unreachable:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := tc.entry
			bad.Name = "bad"
			r := runner(t, bad, lifecycle.Entry{Name: "after", Handler: tagger{}, With: map[string]any{"tag": "after"}})
			c := hooks.NewSessionStart(facts, "startup", "text")
			recs := r.Fire(context.Background(), hooks.PointSessionStart, c)
			if got := types(recs); !reflect.DeepEqual(got, []string{"hooks.failed", "hooks.decided"}) {
				t.Fatalf("records = %v", recs)
			}
			f := recs[0].Payload
			if f["point"] != "session_start" || f["hook"] != "bad" || !strings.Contains(f["why"].(string), tc.why) {
				t.Errorf("hooks.failed = %v, want why containing %q", f, tc.why)
			}
			// Nothing of the failing answer applied; the next hook ran on the original.
			if c.Context != "text|after" || !c.Proceed {
				t.Errorf("context=%q proceed=%v, want the failing hook ignored", c.Context, c.Proceed)
			}
		})
	}
}

func TestUnknownAnswerKeysAreIgnoredWithAWarning(t *testing.T) {
	r := runner(t, lifecycle.Entry{Name: "colourful", Command: self("unknown-key")})
	c := hooks.NewSessionStart(facts, "startup", "text")
	recs := r.Fire(context.Background(), hooks.PointSessionStart, c)
	if got := types(recs); !reflect.DeepEqual(got, []string{"hooks.decided", "hooks.refused"}) {
		t.Fatalf("records = %v", recs)
	}
	if c.Proceed {
		t.Error("the answer's decision was not applied beside its unknown key")
	}
	d := recs[0].Payload
	w, _ := d["warnings"].([]string)
	if !reflect.DeepEqual(d["fields"], map[string]any{"proceed": false}) || len(w) != 1 || !strings.Contains(w[0], `ignored result key "colour": not a decision of session_start`) {
		t.Errorf("hooks.decided = %v", d)
	}
}

func TestChangedFactsAreIgnored(t *testing.T) {
	r := runner(t, lifecycle.Entry{Name: "forger", Command: self("fact-and-decision")})
	c := hooks.NewLoopStart(facts)
	recs := r.Fire(context.Background(), hooks.PointLoopStart, c)
	if c.SessionID != "sess-1" {
		t.Errorf("session_id = %q: a hook changed a fact", c.SessionID)
	}
	if c.Proceed || c.Reason != "facts are ignored" {
		t.Errorf("proceed=%v reason=%q, want the decisions applied", c.Proceed, c.Reason)
	}
	if got := recs[0].Payload["fields"]; !reflect.DeepEqual(got, map[string]any{"proceed": false, "reason": "facts are ignored"}) {
		t.Errorf("decided fields = %v", got)
	}
}

func TestRequiredFailureRefuses(t *testing.T) {
	r := runner(t,
		lifecycle.Entry{Name: "roster", Command: self("exit"), Required: true},
		lifecycle.Entry{Name: "later", Handler: tagger{}, With: map[string]any{"proceed": true, "reason": "would re-allow"}},
	)
	c := hooks.NewLoopStart(facts)
	recs := r.Fire(context.Background(), hooks.PointLoopStart, c)
	if c.Proceed {
		t.Fatal("a required hook failed and proceed stayed true")
	}
	if !strings.Contains(c.Reason, `required hook "roster" failed`) || !strings.Contains(c.Reason, "boom") {
		t.Errorf("reason = %q, want it to name the hook and why", c.Reason)
	}
	if got := types(recs); !reflect.DeepEqual(got, []string{"hooks.failed", "hooks.refused"}) {
		t.Fatalf("records = %v", recs)
	}
	if ref := recs[1].Payload; ref["hook"] != "roster" || ref["point"] != "loop_start" || ref["reason"] != c.Reason {
		t.Errorf("hooks.refused = %v", ref)
	}

	// At a point without proceed, a required failure is only a failure.
	c2 := hooks.NewPhaseChanged(facts, "a", "b", "go", false)
	recs = r.Fire(context.Background(), hooks.PointPhaseChanged, c2)
	if got := types(recs); !reflect.DeepEqual(got, []string{"hooks.failed"}) || !c2.Notify {
		t.Errorf("phase_changed: records %v notify %v", got, c2.Notify)
	}
}

func TestRosterExampleAsCommand(t *testing.T) {
	bin := example(t, "roster")
	list := filepath.Join(t.TempDir(), "roster.txt")
	os.WriteFile(list, []byte("# people\nsess-file\n"), 0o644)
	r := runner(t, lifecycle.Entry{Name: "roster", Command: []string{bin}, On: []string{"loop_start"}, Required: true,
		With: map[string]any{"sessions": []any{"sess-1"}, "file": list}})

	for _, sess := range []string{"sess-1", "sess-file"} {
		f := facts
		f.SessionID = sess
		c := hooks.NewLoopStart(f)
		if recs := r.Fire(context.Background(), hooks.PointLoopStart, c); len(recs) != 0 || !c.Proceed {
			t.Errorf("%s is on the roster: records %v proceed %v", sess, recs, c.Proceed)
		}
	}
	f := facts
	f.SessionID = "mallory"
	c := hooks.NewLoopStart(f)
	recs := r.Fire(context.Background(), hooks.PointLoopStart, c)
	if c.Proceed || c.Reason != "session mallory is not on the roster" {
		t.Errorf("proceed=%v reason=%q", c.Proceed, c.Reason)
	}
	if got := types(recs); !reflect.DeepEqual(got, []string{"hooks.decided", "hooks.refused"}) {
		t.Errorf("records = %v", recs)
	}
	// on narrows: the roster never runs at session_start.
	c2 := hooks.NewSessionStart(f, "startup", "x")
	if recs := r.Fire(context.Background(), hooks.PointSessionStart, c2); len(recs) != 0 {
		t.Errorf("roster ran outside its points: %v", recs)
	}
}

// startRoster runs the roster example as an HTTP server on 127.0.0.1 and returns
// its URL.
func startRoster(t *testing.T, env ...string) string {
	bin := example(t, "roster")
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-token-env", "ROSTER_TOKEN")
	cmd.Env = append(os.Environ(), env...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("roster server did not start: %v", err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
}

func TestRosterExampleAsHTTPServerWithToken(t *testing.T) {
	url := startRoster(t, "ROSTER_TOKEN=tok-9f8e7d")
	entry := lifecycle.Entry{Name: "roster", URL: url, TokenEnv: "CALLER_TOKEN", Required: true, With: map[string]any{"sessions": []any{"sess-1"}}}
	r := runner(t, entry)

	t.Setenv("CALLER_TOKEN", "tok-9f8e7d")
	f := facts
	f.SessionID = "mallory"
	c := hooks.NewLoopStart(f)
	recs := r.Fire(context.Background(), hooks.PointLoopStart, c)
	if c.Proceed || c.Reason != "session mallory is not on the roster" {
		t.Fatalf("proceed=%v reason=%q records=%v", c.Proceed, c.Reason, recs)
	}

	// A wrong token is the server's 401: that hook's failure, which refuses.
	t.Setenv("CALLER_TOKEN", "wrong")
	c = hooks.NewLoopStart(facts)
	recs = r.Fire(context.Background(), hooks.PointLoopStart, c)
	if c.Proceed || len(recs) == 0 || !strings.Contains(recs[0].Payload["why"].(string), "HTTP status 401") {
		t.Errorf("wrong token: proceed=%v records=%v", c.Proceed, recs)
	}
}

func TestTokenComesOnlyFromTokenEnv(t *testing.T) {
	const secret = "s3cret-token-value"
	var mu sync.Mutex
	var seen []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		var req struct{ ID int64 }
		json.NewDecoder(r.Body).Decode(&req)
		// Echo something that would leak the token if we logged answers.
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"proceed":"%s"}}`, req.ID, r.Header.Get("Authorization"))
	}))
	defer srv.Close()

	r := runner(t, lifecycle.Entry{Name: "compliance", URL: srv.URL + "/", TokenEnv: "COMPLIANCE_TOKEN", Headers: map[string]string{"X-Team": "platform"}})

	// Unset: not called at all, and the failure says which variable.
	t.Setenv("COMPLIANCE_TOKEN", "")
	recs := r.Fire(context.Background(), hooks.PointLoopStart, hooks.NewLoopStart(facts))
	if len(seen) != 0 {
		t.Fatalf("called without a token: %v", seen)
	}
	if len(recs) != 1 || !strings.Contains(recs[0].Payload["why"].(string), "COMPLIANCE_TOKEN is not set") {
		t.Fatalf("records = %v", recs)
	}

	t.Setenv("COMPLIANCE_TOKEN", secret)
	recs = r.Fire(context.Background(), hooks.PointLoopStart, hooks.NewLoopStart(facts))
	if len(seen) != 1 {
		t.Fatalf("calls = %d", len(seen))
	}
	if got := seen[0].Get("Authorization"); got != "Bearer "+secret {
		t.Errorf("Authorization = %q", got)
	}
	if got := seen[0].Get("X-Team"); got != "platform" {
		t.Errorf("X-Team = %q", got)
	}
	// The answer was a wrong-type decision quoting the token: the failure record
	// must not carry it.
	b, _ := json.Marshal(recs)
	if len(recs) != 1 || recs[0].Type != "hooks.failed" {
		t.Fatalf("records = %s", b)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("the token leaked into the records: %s", b)
	}
}

func TestDeadlineCutsOffAHangingExecutor(t *testing.T) {
	dir := t.TempDir()
	r := runner(t,
		lifecycle.Entry{Name: "slow", Command: self("hang"), Required: true, With: map[string]any{"pids": dir}},
		lifecycle.Entry{Name: "after", Handler: tagger{}, With: map[string]any{"proceed": true}},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	c := hooks.NewLoopStart(facts)
	recs := r.Fire(ctx, hooks.PointLoopStart, c)

	if got := types(recs); !reflect.DeepEqual(got, []string{"hooks.failed", "hooks.refused"}) {
		t.Fatalf("records = %v", recs)
	}
	if why := recs[0].Payload["why"].(string); !strings.Contains(why, "cut off at the hook deadline") {
		t.Errorf("why = %q", why)
	}
	if c.Proceed {
		t.Error("a required hook was cut off and proceed stayed true")
	}
	// The executor and the child it started are gone, not left running.
	b, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		t.Fatalf("the hanging executor never started: %v", err)
	}
	var parent, child int
	fmt.Sscan(string(b), &parent, &child)
	for i := 0; i < 100 && (alive(parent) || alive(child)); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if alive(parent) || alive(child) {
		t.Errorf("executor %d or its child %d survived the deadline", parent, child)
	}
}

func TestHooksAfterTheDeadlineAreNotRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := runner(t, lifecycle.Entry{Name: "late", Handler: tagger{}, With: map[string]any{"tag": "x"}})
	c := hooks.NewSessionStart(facts, "startup", "t")
	recs := r.Fire(ctx, hooks.PointSessionStart, c)
	if len(recs) != 1 || !strings.Contains(recs[0].Payload["why"].(string), "deadline had passed") || c.Context != "t" {
		t.Errorf("records = %v context = %q", recs, c.Context)
	}
}

func TestTelemetryExampleOnlyObserves(t *testing.T) {
	bin := example(t, "telemetry")
	out := filepath.Join(t.TempDir(), "telemetry.jsonl")
	r := runner(t, lifecycle.Entry{Name: "telemetry", Command: []string{bin}, With: map[string]any{"file": out}})
	ctxs := map[string]any{
		hooks.PointLoopStart:       hooks.NewLoopStart(facts),
		hooks.PointSessionStart:    hooks.NewSessionStart(facts, "startup", "text"),
		hooks.PointSessionSpawned:  hooks.NewSessionSpawned(facts, "SessionStart", "startup", "mock-model"),
		hooks.PointInputReceived:   hooks.NewInputReceived(facts, "hello"),
		hooks.PointToolRequested:   hooks.NewToolRequested(facts, "Bash", json.RawMessage(`{"command":"ls"}`), "ls", nil),
		hooks.PointPhaseChanged:    hooks.NewPhaseChanged(facts, "planning", "coding", "plan_ready", false),
		hooks.PointWaitingForInput: hooks.NewWaitingForInput(facts, "q", "s"),
		hooks.PointLoopComplete:    hooks.NewLoopComplete(facts, "done", "tests_passed"),
	}
	for _, p := range hooks.PointNames() {
		before, _ := json.Marshal(ctxs[p])
		if recs := r.Fire(context.Background(), p, ctxs[p]); len(recs) != 0 {
			t.Errorf("%s: records %v, want none", p, recs)
		}
		if after, _ := json.Marshal(ctxs[p]); string(after) != string(before) {
			t.Errorf("%s: context changed: %s -> %s", p, before, after)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != len(hooks.Points) {
		t.Fatalf("telemetry lines = %d, want %d:\n%s", len(lines), len(hooks.Points), b)
	}
	for i, p := range hooks.PointNames() {
		if !strings.Contains(lines[i], `"point":"`+p+`"`) {
			t.Errorf("line %d = %s, want point %s", i, lines[i], p)
		}
	}
}

func TestFireRejectsAMismatchedContext(t *testing.T) {
	r := runner(t, lifecycle.Entry{Name: "x", Handler: tagger{}})
	recs := r.Fire(context.Background(), hooks.PointLoopStart, hooks.NewSessionStart(facts, "", ""))
	if len(recs) != 1 || recs[0].Type != "hooks.failed" || !strings.Contains(recs[0].Payload["why"].(string), "is not the context of loop_start") {
		t.Errorf("records = %v", recs)
	}
}

func TestNoHooksNoRecords(t *testing.T) {
	var r *lifecycle.Runner
	c := hooks.NewLoopStart(facts)
	if recs := r.Fire(context.Background(), hooks.PointLoopStart, c); recs != nil || !c.Proceed {
		t.Errorf("nil runner: %v %v", recs, c.Proceed)
	}
	r2 := runner(t, lifecycle.Entry{Name: "off", Handler: tagger{}, Disabled: true, With: map[string]any{"proceed": false}})
	if recs := r2.Fire(context.Background(), hooks.PointLoopStart, c); recs != nil || !c.Proceed || r2.Active(hooks.PointLoopStart) {
		t.Errorf("disabled hook ran: %v", recs)
	}
}

func TestLoadFailedRecord(t *testing.T) {
	_, err := lifecycle.Load(filepath.Join(t.TempDir(), "missing.json"))
	rec := lifecycle.LoadFailedRecord(err)
	if rec.Type != "hooks.load_failed" || !strings.Contains(rec.Payload["why"].(string), "missing.json") {
		t.Errorf("record = %v", rec)
	}
}
