package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// gate refuses loop_start for one session and rewrites the session_start text;
// it implements nothing else.
type gate struct{}

func (gate) LoopStart(_ context.Context, c *hooks.LoopStartContext) error {
	if c.SessionID == "mallory" {
		c.Proceed = false
		c.Reason = "not on the roster"
	}
	return nil
}

func (gate) SessionStart(_ context.Context, c *hooks.SessionStartContext) error {
	c.Context = "RULES\n" + c.Context
	c.SessionID = "changed facts change nothing"
	return nil
}

type failing struct{}

func (failing) LoopStart(context.Context, *hooks.LoopStartContext) error {
	return errors.New("roster service down")
}

type panicking struct{}

func (panicking) LoopComplete(context.Context, *hooks.LoopCompleteContext) error { panic("boom") }

func rpc(t *testing.T, handler any, req string) map[string]any {
	t.Helper()
	out := hooks.HandleRequest(context.Background(), handler, []byte(req))
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("answer is not JSON: %s", out)
	}
	if m["jsonrpc"] != "2.0" {
		t.Fatalf("answer lacks jsonrpc 2.0: %s", out)
	}
	return m
}

func TestHandleRequestReturnsOnlyChangedDecisions(t *testing.T) {
	m := rpc(t, gate{}, `{"jsonrpc":"2.0","id":7,"method":"loop_start","params":{"session_id":"mallory","proceed":true}}`)
	if m["id"] != float64(7) {
		t.Errorf("id = %v, want 7", m["id"])
	}
	want := map[string]any{"proceed": false, "reason": "not on the roster"}
	if !reflect.DeepEqual(m["result"], want) {
		t.Errorf("result = %v, want %v", m["result"], want)
	}

	m = rpc(t, gate{}, `{"jsonrpc":"2.0","id":8,"method":"session_start","params":{"session_id":"s","context":"loop text","proceed":true}}`)
	want = map[string]any{"context": "RULES\nloop text"}
	if !reflect.DeepEqual(m["result"], want) {
		t.Errorf("result = %v, want only the changed decision %v", m["result"], want)
	}
}

func TestHandleRequestPassesThrough(t *testing.T) {
	// An allowed session changes nothing; an unimplemented point passes through.
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"loop_start","params":{"session_id":"alice","proceed":true}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tool_requested","params":{"tool_name":"Bash","proceed":true}}`,
	} {
		m := rpc(t, gate{}, req)
		if r, ok := m["result"]; !ok || r != nil {
			t.Errorf("%s: result = %v (present %v), want null", req, r, ok)
		}
		if _, ok := m["error"]; ok {
			t.Errorf("%s: unexpected error %v", req, m["error"])
		}
	}
}

func TestHandleRequestMissingProceedDefaultsTrue(t *testing.T) {
	// A context without proceed must not read as a refusal the hook then "changes".
	m := rpc(t, gate{}, `{"jsonrpc":"2.0","id":1,"method":"loop_start","params":{"session_id":"alice"}}`)
	if m["result"] != nil {
		t.Errorf("result = %v, want null", m["result"])
	}
}

func TestHandleRequestErrors(t *testing.T) {
	cases := []struct {
		name    string
		handler any
		req     string
		code    float64
		msg     string
	}{
		{"unknown method", gate{}, `{"jsonrpc":"2.0","id":1,"method":"work_item_start","params":{}}`, hooks.CodeMethodNotFound, "not a lifecycle point"},
		{"not json", gate{}, `{"jsonrpc":`, hooks.CodeParseError, "parse error"},
		{"no version", gate{}, `{"id":1,"method":"loop_start"}`, hooks.CodeInvalidRequest, "jsonrpc"},
		{"bad params", gate{}, `{"jsonrpc":"2.0","id":1,"method":"loop_start","params":{"proceed":"yes"}}`, hooks.CodeHookFailed, "params of loop_start"},
		{"hook error", failing{}, `{"jsonrpc":"2.0","id":1,"method":"loop_start","params":{}}`, hooks.CodeHookFailed, "roster service down"},
		{"hook panic", panicking{}, `{"jsonrpc":"2.0","id":1,"method":"loop_complete","params":{}}`, hooks.CodeHookFailed, "panicked: boom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := rpc(t, tc.handler, tc.req)
			e, ok := m["error"].(map[string]any)
			if !ok {
				t.Fatalf("no error member in %v", m)
			}
			if e["code"] != tc.code || !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("error = %v, want code %v and message containing %q", e, tc.code, tc.msg)
			}
			if _, ok := m["result"]; ok {
				t.Errorf("an error answer must not carry result: %v", m)
			}
		})
	}
}

func TestPointsAreTheEightInOrder(t *testing.T) {
	want := []string{"loop_start", "session_start", "session_spawned", "input_received", "tool_requested", "phase_changed", "waiting_for_input", "loop_complete"}
	if got := hooks.PointNames(); !reflect.DeepEqual(got, want) {
		t.Fatalf("PointNames() = %v, want %v", got, want)
	}
	decisions := map[string][]string{
		"loop_start":        {"proceed", "reason"},
		"session_start":     {"context", "proceed", "reason"},
		"session_spawned":   {"announce"},
		"input_received":    {"context", "proceed", "reason"},
		"tool_requested":    {"proceed", "reason"},
		"phase_changed":     {"notify", "message"},
		"waiting_for_input": {"question", "summary"},
		"loop_complete":     {"announce"},
	}
	for _, p := range hooks.Points {
		var got []string
		for _, f := range p.Decisions() {
			got = append(got, f.Name)
			if f.Type != "bool" && f.Type != "string" {
				t.Errorf("%s.%s has type %s; decisions are bool or string", p.Name, f.Name, f.Type)
			}
			if f.Doc == "" {
				t.Errorf("%s.%s has no doc", p.Name, f.Name)
			}
		}
		if !reflect.DeepEqual(got, decisions[p.Name]) {
			t.Errorf("%s decisions = %v, want %v (DESIGN.md's table)", p.Name, got, decisions[p.Name])
		}
		if hooks.PointOf(p.New()) != p.Name {
			t.Errorf("PointOf(%s.New()) = %q", p.Name, hooks.PointOf(p.New()))
		}
		// Defaults: proceed, notify and announce start true.
		for k, v := range hooks.Decisions(p.New()) {
			if b, ok := v.(bool); ok && !b {
				t.Errorf("%s.New() has %s false; the default is true", p.Name, k)
			}
		}
	}
}

func TestServeIO(t *testing.T) {
	var out bytes.Buffer
	code := hooks.ServeIO(context.Background(), gate{}, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"loop_start","params":{"session_id":"mallory","proceed":true}}`), &out)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := out.String(); !strings.Contains(got, `"result":{"proceed":false,"reason":"not on the roster"}`) || !strings.HasSuffix(got, "\n") {
		t.Errorf("answer = %q", got)
	}
}

func TestServeLinesAnswersEachLine(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"loop_complete","params":{}}` + "\n\n" +
		`{"jsonrpc":"2.0","id":2,"method":"nope"}` + "\n")
	var out bytes.Buffer
	if code := hooks.ServeLines(context.Background(), struct{}{}, in, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"id":1,"result":null`) || !strings.Contains(lines[1], `"code":-32601`) {
		t.Fatalf("answers:\n%s", out.String())
	}
}
