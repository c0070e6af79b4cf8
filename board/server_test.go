package board_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/board"
	"github.com/hook-loop/hook-loop/overview"
)

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:80"} {
		if ln, err := board.Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) accepted a non-loopback address", addr)
		}
	}
	ln, err := board.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

func TestTokenAndCrossSiteGuard(t *testing.T) {
	p := newProject(t)
	p.start(t, "sess-guard-0001")
	srv, url := p.serve(t)
	base := baseURL(url)
	c := &http.Client{}
	do := func(method, path string, hdr map[string]string, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	if code, _ := do("GET", "/", nil, ""); code != http.StatusForbidden {
		t.Errorf("GET / without token: %d, want 403", code)
	}
	if code, _ := do("GET", "/?token="+srv.Token, map[string]string{"Host": "rebound.example:80"}, ""); code != http.StatusForbidden {
		t.Errorf("GET / with the token under a foreign Host: %d, want 403", code)
	}
	if code, _ := do("GET", "/?token=wrong", nil, ""); code != http.StatusForbidden {
		t.Errorf("GET / with a wrong token: %d, want 403", code)
	}
	if code, _ := do("GET", "/api/sessions", map[string]string{"Cookie": "hook_loop_board=" + srv.Token}, ""); code != http.StatusOK {
		t.Errorf("GET with the cookie: %d, want 200", code)
	}
	code, body := do("GET", "/?token="+srv.Token, nil, "")
	if code != http.StatusOK || !strings.Contains(body, "sess-guard-0001") {
		t.Errorf("GET / with the token: %d, page without the session", code)
	}

	pause := "/api/sessions/sess-guard-0001/pause"
	same := map[string]string{"X-Board-Token": srv.Token, "Origin": base, "Sec-Fetch-Site": "same-origin"}
	for name, hdr := range map[string]map[string]string{
		"no token":         {"Origin": base, "Sec-Fetch-Site": "same-origin", "Cookie": "hook_loop_board=" + srv.Token},
		"cross-site fetch": {"X-Board-Token": srv.Token, "Origin": base, "Sec-Fetch-Site": "cross-site"},
		"foreign origin":   {"X-Board-Token": srv.Token, "Origin": "http://evil.example"},
		"no origin at all": {"X-Board-Token": srv.Token},
	} {
		if code, _ := do("POST", pause, hdr, ""); code != http.StatusForbidden {
			t.Errorf("POST with %s: %d, want 403", name, code)
		}
	}
	if n := len(p.events(t, overview.OperatorPaused)); n != 0 {
		t.Fatalf("refused POSTs wrote %d operator events", n)
	}
	if code, _ := do("POST", "/api/sessions/sess-guard-0001/approve", same, ""); code != http.StatusConflict {
		t.Errorf("approve of a session not waiting: %d, want 409", code)
	}
	if code, _ := do("POST", "/api/sessions/nope/pause", same, ""); code != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", code)
	}
	if code, body := do("POST", pause, same, `{"reason":"lunch"}`); code != http.StatusNoContent {
		t.Fatalf("POST pause: %d %s", code, body)
	}
	got := p.events(t, overview.OperatorPaused)
	if len(got) != 1 || got[0].Actor != "person" || got[0].Payload["reason"] != "lunch" || got[0].SessionID != "sess-guard-0001" {
		t.Fatalf("log holds %+v, want one operator.paused by person with reason lunch", got)
	}
	if ss, _ := srv.Watcher.Session("sess-guard-0001"); !ss.Paused {
		t.Errorf("session not shown paused after the POST")
	}
	// The board's buttons are the person's controls: the paused session's
	// next tool call is refused, and a second pause is the session's state
	// refusing it (409), not a server error.
	if out := p.hook(t, "sess-guard-0001", "PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"c1"`); !strings.Contains(out, "paused by the person: lunch") {
		t.Errorf("tool call of the paused session: %s", out)
	}
	if code, _ := do("POST", pause, same, ""); code != http.StatusConflict {
		t.Errorf("second pause: %d, want 409", code)
	}
	if code, body := do("POST", "/api/sessions/sess-guard-0001/cancel", same, ""); code != http.StatusNoContent {
		t.Fatalf("POST cancel: %d %s", code, body)
	}
	if ss, _ := srv.Watcher.Session("sess-guard-0001"); ss.Outcome != "cancelled" {
		t.Errorf("outcome after cancel: %q, want cancelled", ss.Outcome)
	}
}
