// Package lifecycle runs the user's lifecycle hooks: it loads their declaration
// from the user's own config (never the project checkout), calls each executor
// over JSON-RPC 2.0 in declaration order, and turns what happened into records for
// the event log. It implements loop.Lifecycle.
package lifecycle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hook-loop/hook-loop/project/regfile"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/project/userconfig"
	"github.com/hook-loop/hook-loop/sdk/hooks"
	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/shell"
)

// EnvConfig names the variable that points at a hooks config file.
const EnvConfig = userconfig.Env

// DefaultTimeout is an entry's timeout when timeoutSeconds is absent.
const DefaultTimeout = 10 * time.Second

// Entry is one declared hook. Exactly one of Command, Path, Module, URL and
// Handler is set.
type Entry struct {
	Name string
	// Command is the argv of a command executor, argv[0] already resolved against
	// the config file's directory when it is a relative path.
	Command []string
	// Path is a script or executable, absolute (resolved against the config
	// file's directory): .py runs with python3, .js and .mjs with node.
	Path string
	// Module is pkg.mod[:Class], served by the Python SDK's runner.
	Module string
	// KeepAlive and Idle are what an older config asked for with keepAlive
	// and idleSeconds. They are read and ignored: every call starts the
	// executor afresh, so that nothing a hook starts outlives it.
	KeepAlive bool
	Idle      time.Duration
	// URL is the endpoint of an HTTP executor.
	URL string
	// Handler is an in-process executor: a value implementing some of the
	// sdk/hooks point interfaces (a Go program embedding hook-loop sets it).
	Handler any

	On []string // the points it runs at; empty: every point
	// Aliases are the design's point names the entry's on used, each with
	// hook-loop's name it loaded as (`hooks` notes them).
	Aliases  map[string]string
	Required bool
	Disabled bool          // the config's enabled:false
	Timeout  time.Duration // 0: DefaultTimeout
	With     map[string]any
	TokenEnv string // the NAME of the variable holding the bearer token
	Headers  map[string]string
	// Dir is the directory a command runs in: the config file's directory.
	Dir string
	// loadErr is why Check found the entry's code could not be loaded.
	loadErr error
}

// Kind is command, path, module, url or go (in-process).
func (e Entry) Kind() string {
	switch {
	case e.Handler != nil:
		return "go"
	case e.URL != "":
		return "url"
	case e.Module != "":
		return "module"
	case e.Path != "":
		return "path"
	}
	return "command"
}

// Target is what the entry runs or calls, for display. It never holds a token.
func (e Entry) Target() string {
	switch e.Kind() {
	case "go":
		return fmt.Sprintf("%T", e.Handler)
	case "url":
		return e.URL
	}
	return strings.Join(e.Argv(), " ")
}

// Argv is the process a command, path or module entry runs.
func (e Entry) Argv() []string {
	switch e.Kind() {
	case "module":
		return []string{"python3", "-m", "hook_loop_hooks.run", e.Module}
	case "path":
		switch strings.ToLower(filepath.Ext(e.Path)) {
		case ".py":
			return []string{"python3", e.Path}
		case ".js", ".mjs":
			return []string{"node", e.Path}
		}
		return []string{e.Path}
	}
	return e.Command
}

// python reports whether the executor runs Python code that may import the SDK.
func (e Entry) python() bool {
	return e.Kind() == "module" || (e.Kind() == "path" && strings.EqualFold(filepath.Ext(e.Path), ".py"))
}

// File is the file the executor's code is in, "" when none is known (an
// installed module, a program not found on PATH). A kept-alive executor is
// restarted when this file changes.
func (e Entry) File() string {
	switch e.Kind() {
	case "path":
		return e.Path
	case "module":
		mod, _, _ := strings.Cut(e.Module, ":")
		base := filepath.Join(e.Dir, filepath.FromSlash(strings.ReplaceAll(mod, ".", "/")))
		for _, f := range []string{base + ".py", filepath.Join(base, "__init__.py")} {
			if _, err := os.Stat(f); err == nil {
				return f
			}
		}
	case "command":
		if filepath.IsAbs(e.Command[0]) {
			return e.Command[0]
		}
		if p, err := exec.LookPath(e.Command[0]); err == nil {
			return p
		}
	}
	return ""
}

// Points is the list of points the entry runs at.
func (e Entry) Points() []string {
	if len(e.On) == 0 {
		return hooks.PointNames()
	}
	return e.On
}

func (e Entry) handles(point string) bool {
	if e.Disabled || (len(e.On) > 0 && !slices.Contains(e.On, point)) {
		return false
	}
	if e.Handler != nil {
		return hooks.Handles(e.Handler, point)
	}
	return true
}

func (e Entry) timeout() time.Duration {
	if e.Timeout <= 0 {
		return DefaultTimeout
	}
	return e.Timeout
}

// ConfigPath returns the hooks config file to read (userconfig.Path): the
// --hooks-config flag, else $HOOK_LOOP_CONFIG, else config.yaml or config.json
// in $XDG_CONFIG_HOME/hook-loop (LoadConfig refuses when both exist). explicit
// is true for the first two, whose absence is an error.
func ConfigPath(flag string, getenv func(string) string) (path string, explicit bool) {
	return userconfig.Path(flag, getenv)
}

// checkDefault refuses a default declaration when both config.yaml and
// config.json exist: neither silently wins.
func checkDefault(path string) error {
	if filepath.Base(path) != "config.yaml" {
		return nil
	}
	other := filepath.Join(filepath.Dir(path), "config.json")
	if _, err := os.Stat(other); err == nil {
		return fmt.Errorf("hooks config: both %s and %s exist; keep one", path, other)
	}
	return nil
}

// FindConfig is ConfigPath plus the refusal of two default files.
func FindConfig(flag string, getenv func(string) string) (path string, explicit bool, err error) {
	path, explicit = ConfigPath(flag, getenv)
	if !explicit {
		err = checkDefault(path)
	}
	return path, explicit, err
}

// LoadConfig finds and loads the declaration as ConfigPath describes. A missing
// default file is no hooks at all; a missing explicit one is an error.
func LoadConfig(flag string, getenv func(string) string) (*Runner, string, error) {
	path, explicit, err := FindConfig(flag, getenv)
	if err != nil {
		return nil, path, err
	}
	r, err := Load(path)
	if err != nil && !explicit && errors.Is(err, fs.ErrNotExist) {
		return &Runner{}, path, nil
	}
	return r, path, err
}

// Load reads the declaration at path. The error names the file, the entry and
// the field.
func Load(path string) (*Runner, error) {
	entries, err := ParseFile(path)
	if err != nil {
		return nil, err
	}
	return NewRunner(entries...)
}

// maxConfig bounds what a hook reads of a hooks config.
const maxConfig = 4 << 20

// ParseFile reads and validates the hooks config at path.
func ParseFile(path string) ([]Entry, error) {
	// The user's config may sit where the agent's tools can write: read it
	// without waiting on what is put there.
	data, err := regfile.ReadFile(path, maxConfig)
	if err != nil {
		return nil, fmt.Errorf("hooks config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("hooks config %s: %w", path, err)
	}
	parse := Parse
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		parse = ParseYAML
	}
	entries, err := parse(data, filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return entries, nil
}

var (
	// Compiled on first use: only a lifecycle declaration needs them, and every
	// hook process would otherwise pay for them at start-up.
	nameRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*$`) })
	envVarRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

var entryKeys = []string{"name", "command", "path", "module", "url", "on", "required", "enabled", "timeoutSeconds", "with", "tokenEnv", "headers", "keepAlive", "idleSeconds"}

// executorKeys are the keys of which an entry has exactly one.
var executorKeys = []string{"command", "path", "module", "url"}

var moduleRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)?$`)
})

// Parse validates a config document; dir is the directory relative command paths
// resolve against. Keys other than "hooks" at the top level belong to other
// parts of hook-loop and are left alone.
func Parse(data []byte, dir string) ([]Entry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not valid JSON: data after the top-level value")
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("top level: expected an object")
	}
	raw, ok := top["hooks"]
	if !ok || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("hooks: expected an array")
	}
	var entries []Entry
	seen := map[string]int{}
	for i, item := range list {
		e, err := parseEntry(i, item, dir)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[e.Name]; dup {
			return nil, fmt.Errorf("hooks[%d] (%q).name: duplicate of hooks[%d]", i, e.Name, j)
		}
		seen[e.Name] = i
		entries = append(entries, e)
	}
	return entries, nil
}

// ParseYAML validates a YAML config document: the same keys as Parse's JSON,
// under a top-level hooks: list.
func ParseYAML(data []byte, dir string) ([]Entry, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %v", err)
	}
	if doc == nil {
		return nil, nil
	}
	// Through JSON, so one validator serves both forms; yaml.v3 gives
	// map[string]any for string keys, and any other key has no JSON form.
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("not a JSON-like document (every key must be a string): %v", err)
	}
	return Parse(b, dir)
}

func parseEntry(i int, item any, dir string) (Entry, error) {
	label := fmt.Sprintf("hooks[%d]", i)
	obj, ok := item.(map[string]any)
	if !ok {
		return Entry{}, fmt.Errorf("%s: expected an object", label)
	}
	if n, ok := obj["name"].(string); ok && n != "" {
		label = fmt.Sprintf("%s (%q)", label, n)
	}
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%s.%s: %s", label, field, fmt.Sprintf(format, args...))
	}
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(entryKeys, k) {
			return Entry{}, bad(k, "unknown key (expected one of %s)", strings.Join(entryKeys, ", "))
		}
	}
	e := Entry{Dir: dir}

	name, ok := obj["name"].(string)
	if !ok {
		return Entry{}, bad("name", "expected a string matching ^[a-z][a-z0-9-]*$")
	}
	if !nameRE().MatchString(name) {
		return Entry{}, bad("name", "expected a string matching ^[a-z][a-z0-9-]*$, got %q", name)
	}
	e.Name = name

	var kinds []string
	for _, k := range executorKeys {
		if _, ok := obj[k]; ok {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		got := "none"
		if len(kinds) > 1 {
			got = strings.Join(kinds, " and ")
		}
		return Entry{}, bad(executorKeys[0], "expected exactly one of %s, got %s", strings.Join(executorKeys, ", "), got)
	}
	hasURL := kinds[0] == "url"
	switch kinds[0] {
	case "command":
		argv, err := parseCommand(obj["command"], dir)
		if err != nil {
			return Entry{}, bad("command", "%v", err)
		}
		e.Command = argv
	case "path":
		s, ok := obj["path"].(string)
		if !ok || s == "" {
			return Entry{}, bad("path", "expected the path of a script or executable (relative to %s)", dir)
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(dir, s)
		}
		e.Path = filepath.Clean(s)
	case "module":
		s, ok := obj["module"].(string)
		if !ok || !moduleRE().MatchString(s) {
			return Entry{}, bad("module", "expected a Python module as pkg.mod or pkg.mod:Class, got %s", show(obj["module"]))
		}
		e.Module = s
	}
	if !hasURL {
		for _, k := range []string{"tokenEnv", "headers"} {
			if _, ok := obj[k]; ok {
				return Entry{}, bad(k, "only a url entry takes %s", k)
			}
		}
	} else {
		for _, k := range []string{"keepAlive", "idleSeconds"} {
			if _, ok := obj[k]; ok {
				return Entry{}, bad(k, "a url entry is not a process hook-loop starts; %s is for command, path and module entries", k)
			}
		}
	}
	if v, ok := obj["keepAlive"]; ok {
		b, ok := v.(bool)
		if !ok {
			return Entry{}, bad("keepAlive", "expected true or false")
		}
		e.KeepAlive = b
	}
	if v, ok := obj["idleSeconds"]; ok {
		f, ok := positive(v)
		if !ok {
			return Entry{}, bad("idleSeconds", "expected a positive number")
		}
		e.Idle = time.Duration(f * float64(time.Second))
	}

	if v, ok := obj["tokenEnv"]; ok {
		s, ok := v.(string)
		if !ok || !envVarRE().MatchString(s) {
			return Entry{}, bad("tokenEnv", "expected the name of an environment variable (the token itself never goes in this file)")
		}
		e.TokenEnv = s
	}
	if v, ok := obj["headers"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			return Entry{}, bad("headers", "expected an object of strings")
		}
		e.Headers = map[string]string{}
		for _, k := range sortedKeys(m) {
			s, ok := m[k].(string)
			if !ok {
				return Entry{}, bad("headers."+k, "expected a string")
			}
			if strings.EqualFold(k, "Authorization") {
				return Entry{}, bad("headers."+k, "refused: put the token's variable name in tokenEnv instead")
			}
			e.Headers[k] = s
		}
	}
	if hasURL {
		s, ok := obj["url"].(string)
		if !ok {
			return Entry{}, bad("url", "expected a string")
		}
		if err := checkURL(s, e.TokenEnv != ""); err != nil {
			return Entry{}, bad("url", "%v", err)
		}
		e.URL = s
	}

	if v, ok := obj["on"]; ok {
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return Entry{}, bad("on", "expected a non-empty array of points (%s)", strings.Join(hooks.PointNames(), ", "))
		}
		for j, p := range arr {
			s, ok := p.(string)
			name, known := hooks.Canonical(s)
			if !ok || !known {
				return Entry{}, bad(fmt.Sprintf("on[%d]", j), "expected one of %s (or a design name: %s), got %s", strings.Join(hooks.PointNames(), ", "), strings.Join(sortedKeys(hooks.DesignAliases()), ", "), show(p))
			}
			if name != s {
				if e.Aliases == nil {
					e.Aliases = map[string]string{}
				}
				e.Aliases[s] = name
				s = name
			}
			if !slices.Contains(e.On, s) {
				e.On = append(e.On, s)
			}
		}
	}
	if v, ok := obj["required"]; ok {
		b, ok := v.(bool)
		if !ok {
			return Entry{}, bad("required", "expected true or false")
		}
		e.Required = b
	}
	if v, ok := obj["enabled"]; ok {
		b, ok := v.(bool)
		if !ok {
			return Entry{}, bad("enabled", "expected true or false")
		}
		e.Disabled = !b
	}
	if v, ok := obj["timeoutSeconds"]; ok {
		f, ok := positive(v)
		if !ok {
			return Entry{}, bad("timeoutSeconds", "expected a positive number")
		}
		e.Timeout = time.Duration(f * float64(time.Second))
	}
	if v, ok := obj["with"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			return Entry{}, bad("with", "expected an object")
		}
		e.With = normalize(m).(map[string]any)
	}
	return e, nil
}

func positive(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && f > 0
}

// parseCommand accepts an argv array or a string split with shell word rules.
// A relative path in argv[0] resolves against dir; a bare name is looked up on
// PATH when the hook runs.
func parseCommand(v any, dir string) ([]string, error) {
	var argv []string
	switch c := v.(type) {
	case string:
		words, err := shell.Fields(c, os.Getenv)
		if err != nil {
			return nil, fmt.Errorf("cannot split %q into words: %v", c, err)
		}
		argv = words
	case []any:
		for j, w := range c {
			s, ok := w.(string)
			if !ok {
				return nil, fmt.Errorf("element %d: expected a string", j)
			}
			argv = append(argv, s)
		}
	default:
		return nil, fmt.Errorf("expected an argv array or a string")
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("expected a program to run, got an empty command")
	}
	if !filepath.IsAbs(argv[0]) && strings.ContainsRune(argv[0], '/') {
		argv[0] = filepath.Join(dir, argv[0])
	}
	return argv, nil
}

// checkURL allows https anywhere and http only to a loopback host, so neither
// the context nor a token ever crosses a network in clear.
func checkURL(s string, hasToken bool) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("expected a URL: %v", err)
	}
	if u.User != nil {
		return fmt.Errorf("refused: credentials in the URL (use tokenEnv)")
	}
	if u.Host == "" {
		return fmt.Errorf("expected an absolute http(s) URL, got %q", s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		if hasToken {
			return fmt.Errorf("refused: http:// to non-loopback host %q would send the tokenEnv token in clear; use https", u.Hostname())
		}
		return fmt.Errorf("refused: http:// to non-loopback host %q; use https", u.Hostname())
	}
	return fmt.Errorf("expected an https URL (or http to a loopback host), got scheme %q", u.Scheme)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// normalize turns json.Numbers into float64 (or int64 when whole) so With
// marshals as the user wrote it and compares plainly.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// UserStore is the top-level "store" of the user config (ConfigPath without a
// flag): the postgres:// URL hooks keep the loop's log in, "" when the file or
// the key is absent. The error names the file and the key.
func UserStore(getenv func(string) string) (string, error) {
	path, v, err := UserKey(getenv, "store")
	if err != nil || v == nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: store: expected a string (a postgres:// URL), got %T", path, v)
	}
	return strings.TrimSpace(s), nil
}

// UserKey is the top-level key of the user config (ConfigPath without a
// flag) and the file's path: nil when the file or the key is absent.
func UserKey(getenv func(string) string, key string) (string, any, error) {
	path, _ := ConfigPath("", getenv)
	data, err := regfile.ReadFile(path, maxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil, nil
	}
	if err != nil {
		return path, nil, fmt.Errorf("user config: %w", err)
	}
	var top map[string]any
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		err = yaml.Unmarshal(data, &top)
	} else {
		err = json.Unmarshal(data, &top)
	}
	if err != nil {
		return path, nil, fmt.Errorf("%s: not valid %s: %v", path, strings.ToUpper(strings.TrimPrefix(filepath.Ext(path), ".")), err)
	}
	return path, top[key], nil
}

// CheckURL allows https anywhere and http only to a loopback host: what a
// lifecycle hook's url, or a webhook hook-loop posts to, may be.
func CheckURL(s string) error { return checkURL(s, false) }
