// Package gemini is a scripted mock of the Gemini API (generateContent and
// streamGenerateContent), enough to run the real Gemini CLI (`gemini -p`)
// offline in tests. It listens on 127.0.0.1 only and records every request so
// a test can assert on what the model received. The behaviour follows
// ../shared/harness/gemini/gemini_mock.py: the agent loop's requests are
// answered from a script, one step per request; Gemini CLI's own side
// requests (routing classifier, next-speaker checks) ask for JSON and get a
// small JSON text.
package gemini

import (
	"encoding/json"
	"fmt"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/scripted"
	"io"
	"net/http"
	"strings"
)

// Step is one answer of the scripted model: a function call when Tool is
// set (its arguments in Input), else the text Text.
type Step = scripted.Step

// Script decides the model's answers.
type Script = scripted.Script[Request]

// Request is one HTTP request the mock received.
type Request struct{ scripted.Meta }

func meta(r *Request) *scripted.Meta { return &r.Meta }

// Shell is a step running command with Gemini CLI's shell tool.
func Shell(command string) Step {
	return Step{Tool: "run_shell_command", Input: map[string]any{"command": command, "description": "scripted by the mock model"}}
}

// WriteFile is a step writing content to path with Gemini CLI's write_file.
func WriteFile(path, content string) Step {
	return Step{Tool: "write_file", Input: map[string]any{"file_path": path, "content": content}}
}

// Text is a text-only step: the model's turn ends with this answer.
func Text(s string) Step { return scripted.Text(s) }

// Server is a running mock.
type Server struct {
	*scripted.Server[Request] // URL: the base URL to give Gemini CLI as GOOGLE_GEMINI_BASE_URL
}

// Start listens on 127.0.0.1 on a free port and serves script.
func Start(script Script) (*Server, error) {
	s := &Server{}
	srv, err := scripted.Start("gemini api", script, meta, s.serve)
	if err != nil {
		return nil, err
	}
	s.Server = srv
	return s, nil
}

// UserSettings is the user settings file Gemini CLI needs to use an API key
// without asking (without it, `gemini -p` exits 41: "Invalid auth method
// selected"); write it to <home>/.gemini/settings.json.
const UserSettings = `{"security":{"auth":{"selectedType":"gemini-api-key"}}}` + "\n"

// Env is the environment that runs `gemini -p` against this mock and nothing
// else (harness/gemini/README.md). home isolates Gemini CLI's settings and
// state; the workspace is trusted through the environment.
func (s *Server) Env(home string) []string {
	return scripted.Env(home,
		"GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+s.URL, "GEMINI_CLI_TRUST_WORKSPACE=true")
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{scripted.NewMeta(r, body)}
	switch {
	case r.Method == http.MethodGet:
		s.Record(req)
		writeJSON(w, map[string]any{"models": []any{map[string]any{"name": "models/gemini-2.5-flash"}}})
	case r.Method != http.MethodPost:
		s.Record(req)
		http.Error(w, "mock: no such endpoint", http.StatusNotFound)
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		req.Kind = "count_tokens"
		s.Record(req)
		writeJSON(w, map[string]any{"totalTokens": 10})
	case strings.HasSuffix(r.URL.Path, ":embedContent"):
		req.Kind = "embed"
		s.Record(req)
		writeJSON(w, map[string]any{"embedding": map[string]any{"values": []float64{0}}})
	case strings.HasSuffix(r.URL.Path, ":generateContent") || strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		var parts []any
		var gc struct {
			GenerationConfig map[string]any `json:"generationConfig"`
			Config           map[string]any `json:"config"`
		}
		_ = json.Unmarshal(body, &gc)
		cfg := gc.GenerationConfig
		if cfg == nil {
			cfg = gc.Config
		}
		if wantsJSON(cfg) {
			s.Answer(req, false, Step{})
			j, _ := json.Marshal(map[string]any{"next_speaker": "user", "reasoning": "done", "model_choice": "flash"})
			parts = []any{map[string]any{"text": string(j)}}
		} else {
			parts = []any{part(s.Answer(req, true, Step{}).Step)}
		}
		resp := map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
			"modelVersion":  "gemini-2.5-flash",
		}
		if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			b, _ := json.Marshal(resp)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "data: %s\r\n\r\n", b)
			return
		}
		writeJSON(w, resp)
	default:
		s.Record(req)
		http.Error(w, "mock: no such endpoint", http.StatusNotFound)
	}
}

// wantsJSON reports whether a generation config asks for a JSON answer: the
// CLI's own side requests do, the agent loop's never.
func wantsJSON(cfg map[string]any) bool {
	if cfg == nil {
		return false
	}
	_, schema := cfg["responseJsonSchema"]
	_, schema2 := cfg["responseSchema"]
	return cfg["responseMimeType"] == "application/json" || schema || schema2
}

func part(st Step) map[string]any {
	if st.Tool != "" {
		args := st.Input
		if args == nil {
			args = map[string]any{}
		}
		return map[string]any{"functionCall": map[string]any{"name": st.Tool, "args": args}}
	}
	return map[string]any{"text": st.Text}
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(b) //nolint:errcheck // the client hung up
}

// Part is one part of a request's contents, flattened for assertions.
type Part struct {
	Role string // user or model
	// Kind is "text", "functionCall" or "functionResponse".
	Kind string
	Text string // text; a function response's response as JSON
	Name string // function name
}

// Parts flattens the request's contents.
func (r Request) Parts() []Part {
	var body struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         *string `json:"text"`
				FunctionCall *struct {
					Name string `json:"name"`
				} `json:"functionCall"`
				FunctionResponse *struct {
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return nil
	}
	var out []Part
	for _, c := range body.Contents {
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				out = append(out, Part{Role: c.Role, Kind: "functionCall", Name: p.FunctionCall.Name})
			case p.FunctionResponse != nil:
				out = append(out, Part{Role: c.Role, Kind: "functionResponse", Name: p.FunctionResponse.Name, Text: string(p.FunctionResponse.Response)})
			case p.Text != nil:
				out = append(out, Part{Role: c.Role, Kind: "text", Text: *p.Text})
			}
		}
	}
	return out
}

// AfterLastModel returns the parts after the model's last turn: what is new
// to the model in this request.
func (r Request) AfterLastModel() []Part {
	ps := r.Parts()
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].Role == "model" {
			return ps[i+1:]
		}
	}
	return ps
}

// Texts renders parts one a line, for assertions and failure output.
func Texts(ps []Part) []string {
	var out []string
	for _, p := range ps {
		switch p.Kind {
		case "text":
			out = append(out, p.Role+": "+p.Text)
		default:
			out = append(out, p.Role+" "+p.Kind+" "+p.Name+": "+p.Text)
		}
	}
	return out
}
