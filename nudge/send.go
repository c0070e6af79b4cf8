package nudge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/lifecycle"
)

// ConfigKey is the user config's key for nudges.
const ConfigKey = "notify"

// Config is the user config's "notify" object.
type Config struct {
	// Desktop shows a desktop notification (notify-send, osascript) where
	// one is present; default true.
	Desktop *bool `json:"desktop,omitempty"`
	// Webhook is a URL to POST each nudge to as JSON with a Slack-compatible
	// "text"; https, or http to a loopback host.
	Webhook string `json:"webhook,omitempty"`
	// RefusedStops is N of "refused N stops in a row" (default 3).
	RefusedStops int `json:"refused_stops,omitempty"`
	// Kinds limits the kinds sent (default all: waiting, refused, paused,
	// cancelled, ended).
	Kinds []string `json:"kinds,omitempty"`
}

// LoadConfig reads "notify" from the user config (lifecycle.ConfigPath);
// an absent file or key is the defaults. Errors name the file and the key.
func LoadConfig(getenv func(string) string) (Config, error) {
	path, v, err := lifecycle.UserKey(getenv, ConfigKey)
	if err != nil || v == nil {
		return Config{}, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %s: %v", path, ConfigKey, err)
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%s: %s: expected {\"desktop\": bool, \"webhook\": URL, \"refused_stops\": number, \"kinds\": [kind]}: %v", path, ConfigKey, err)
	}
	if c.Webhook != "" {
		if err := lifecycle.CheckURL(c.Webhook); err != nil {
			return Config{}, fmt.Errorf("%s: %s.webhook: %v", path, ConfigKey, err)
		}
	}
	if c.RefusedStops < 0 {
		return Config{}, fmt.Errorf("%s: %s.refused_stops: expected a positive number, got %d", path, ConfigKey, c.RefusedStops)
	}
	for i, k := range c.Kinds {
		if !slices.Contains(Kinds, k) {
			return Config{}, fmt.Errorf("%s: %s.kinds[%d]: expected one of %s, got %q", path, ConfigKey, i, strings.Join(Kinds, ", "), k)
		}
	}
	return c, nil
}

// Wants reports whether nudges of kind are sent.
func (c Config) Wants(kind string) bool { return len(c.Kinds) == 0 || slices.Contains(c.Kinds, kind) }

// Sender delivers a nudge.
type Sender interface {
	Send(ctx context.Context, n Nudge) error
	Name() string
}

// SendTimeout bounds one delivery.
const SendTimeout = 5 * time.Second

// sendWaitDelay is how long Send waits, after the notifier is killed or has
// exited, for the pipes a child of it still holds.
const sendWaitDelay = 500 * time.Millisecond

// Senders are what c asks for that is present here: the desktop's notifier
// (found with lookPath, exec.LookPath when nil) and the webhook.
func (c Config) Senders(lookPath func(string) (string, error)) []Sender {
	var out []Sender
	if c.Desktop == nil || *c.Desktop {
		if d := FindDesktop(runtime.GOOS, lookPath); d != nil {
			out = append(out, d)
		}
	}
	if c.Webhook != "" {
		out = append(out, Webhook{URL: c.Webhook})
	}
	return out
}

// Desktop runs the platform's notifier once per nudge and waits for it:
// nothing is left running.
type Desktop struct {
	Path string
	Args func(n Nudge) []string
}

// FindDesktop is notify-send on Linux (and the BSDs), osascript on macOS,
// when on PATH; nil otherwise.
func FindDesktop(goos string, lookPath func(string) (string, error)) *Desktop {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if goos == "darwin" {
		p, err := lookPath("osascript")
		if err != nil {
			return nil
		}
		return &Desktop{Path: p, Args: func(n Nudge) []string {
			return []string{"-e", "display notification " + appleString(n.Text) + " with title " + appleString("hook-loop: "+n.Kind)}
		}}
	}
	p, err := lookPath("notify-send")
	if err != nil {
		return nil
	}
	return &Desktop{Path: p, Args: func(n Nudge) []string {
		urgency := "normal"
		if n.Kind == Waiting || n.Kind == Refused {
			urgency = "critical"
		}
		return []string{"--app-name=hook-loop", "--urgency=" + urgency, "hook-loop: " + n.Kind, n.Text}
	}}
}

// appleString quotes s as an AppleScript string literal.
func appleString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Name is the notifier's path.
func (d *Desktop) Name() string { return d.Path }

// Send runs the notifier and waits for it.
func (d *Desktop) Send(ctx context.Context, n Nudge) error {
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.Path, d.Args(n)...)
	// A child of the notifier holding its output pipe must not keep Send
	// waiting past SendTimeout.
	cmd.WaitDelay = sendWaitDelay
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil {
		err = nil // it exited 0; only a child of it kept the pipe
	}
	if err != nil {
		return fmt.Errorf("%s: %v: %s", d.Path, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Webhook POSTs a nudge as JSON: the Nudge's fields, "text" among them, which
// is all a Slack incoming webhook reads.
type Webhook struct {
	URL    string
	Client *http.Client // http.DefaultClient when nil
}

// Name is the webhook's URL without its query (which may hold a secret).
func (w Webhook) Name() string {
	if i := strings.IndexAny(w.URL, "?#"); i >= 0 {
		return w.URL[:i]
	}
	return w.URL
}

// Send posts n and expects a 2xx answer.
func (w Webhook) Send(ctx context.Context, n Nudge) error {
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook %s: %w", w.Name(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	c := w.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // not the URL again, whose query may hold a secret
		}
		return fmt.Errorf("webhook %s: %w", w.Name(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook %s: %s", w.Name(), resp.Status)
	}
	return nil
}
