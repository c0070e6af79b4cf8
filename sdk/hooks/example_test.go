package hooks_test

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// roster implements only loop_start; every other point passes through.
type roster map[string]bool

func (r roster) LoopStart(_ context.Context, c *hooks.LoopStartContext) error {
	if !r[c.SessionID] {
		c.Proceed = false
		c.Reason = c.SessionID + " is not on the roster"
	}
	return nil
}

// A command executor's whole main is one call.
func ExampleServeStdio() {
	_ = func() { // in func main():
		hooks.ServeStdio(roster{"alice": true})
	}
}

// HandleRequest is the server half for any HTTP framework.
func ExampleHandleRequest() {
	h := roster{"alice": true}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook-loop", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(hooks.HandleRequest(r.Context(), h, body))
	})
	_ = mux // serve it with http.ListenAndServe

	answer := hooks.HandleRequest(context.Background(), h,
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"loop_start","params":{"session_id":"mallory","proceed":true}}`))
	fmt.Println(string(answer))
	// Output: {"jsonrpc":"2.0","id":1,"result":{"proceed":false,"reason":"mallory is not on the roster"}}
}
