package hookshttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/sdk/hooks"
	"github.com/hook-loop/hook-loop/sdk/hooks/hookshttp"
)

// gate refuses loop_start for one session.
type gate struct{}

func (gate) LoopStart(_ context.Context, c *hooks.LoopStartContext) error {
	if c.SessionID == "mallory" {
		c.Proceed = false
		c.Reason = "not on the roster"
	}
	return nil
}

func TestServerBearerAndHealth(t *testing.T) {
	srv := httptest.NewServer(hookshttp.NewServer(gate{}, hookshttp.ServerOptions{BearerToken: "s3cret"}))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != "ok" {
		t.Errorf("GET /health = %d %q", resp.StatusCode, body)
	}

	req := `{"jsonrpc":"2.0","id":1,"method":"loop_start","params":{"session_id":"mallory","proceed":true}}`
	post := func(auth string) (int, string) {
		r, _ := http.NewRequest("POST", srv.URL+"/", strings.NewReader(req))
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := post(""); code != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", code)
	}
	if code, _ := post("Bearer wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong token: status %d, want 401", code)
	}
	code, body2 := post("Bearer s3cret")
	if code != 200 || !strings.Contains(body2, `"proceed":false`) {
		t.Errorf("right token: %d %s", code, body2)
	}
}
