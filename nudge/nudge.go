// Package nudge tells a person when a session needs them: it starts waiting
// for them, is refused N stops in a row, is paused or cancelled, or ends. It
// compares what the overview shows from one look to the next, keeps each
// (session, kind) to one nudge a minute, and sends through a desktop
// notification and/or a webhook. It runs in a process the person started
// (`board --all`, `notify`), never in a hook.
package nudge

import (
	"fmt"
	"time"

	"github.com/hook-loop/hook-loop/overview"
)

// Kinds of nudge.
const (
	Waiting   = "waiting"
	Refused   = "refused"
	Paused    = "paused"
	Cancelled = "cancelled"
	Ended     = "ended"
)

// Kinds lists every kind.
var Kinds = []string{Waiting, Refused, Paused, Cancelled, Ended}

// DefaultRefusedStops is N of "refused N stops in a row".
const DefaultRefusedStops = 3

// DefaultEvery is the least time between two nudges of one kind for one session.
const DefaultEvery = time.Minute

// Nudge is one thing to tell the person.
type Nudge struct {
	Kind     string `json:"kind"`
	Project  string `json:"project"`
	Session  string `json:"session_id"`
	Short    string `json:"short"`
	Harness  string `json:"harness,omitempty"`
	State    string `json:"state"`
	Machine  string `json:"machine,omitempty"`
	Checkout string `json:"checkout,omitempty"`
	// Text is the one line shown and sent (a webhook's "text").
	Text string `json:"text"`
}

// Detector turns successive looks at projects' sessions into nudges.
type Detector struct {
	RefusedStops int           // default DefaultRefusedStops
	Every        time.Duration // default DefaultEvery
	Now          func() time.Time

	seen map[string]overview.Session // by project + session
	sent map[string]time.Time        // by project + session + kind
}

func (d *Detector) init() {
	if d.seen == nil {
		d.seen, d.sent = map[string]overview.Session{}, map[string]time.Time{}
	}
	if d.RefusedStops <= 0 {
		d.RefusedStops = DefaultRefusedStops
	}
	if d.Every <= 0 {
		d.Every = DefaultEvery
	}
	if d.Now == nil {
		d.Now = time.Now
	}
}

// Prime records how the sessions stand without nudging: what was already so
// when the person started looking is not news.
func (d *Detector) Prime(project string, ss []overview.Session) {
	d.init()
	for _, s := range ss {
		d.seen[project+"\x00"+s.ID] = s
	}
}

// Observe compares project's sessions with the last look and returns what
// changed that the person should hear of. A session not seen before is new:
// its first look may already be news (it waits for them).
func (d *Detector) Observe(project string, ss []overview.Session) []Nudge {
	d.init()
	var out []Nudge
	now := d.Now()
	for _, s := range ss {
		key := project + "\x00" + s.ID
		prev := d.seen[key]
		d.seen[key] = s
		for _, kind := range changes(prev, s, d.RefusedStops) {
			k := key + "\x00" + kind
			if t, ok := d.sent[k]; ok && now.Sub(t) < d.Every {
				continue
			}
			d.sent[k] = now
			out = append(out, describe(kind, project, s))
		}
	}
	return out
}

// changes are the kinds of news between two looks at one session.
func changes(prev, cur overview.Session, n int) []string {
	var out []string
	if cur.Waiting && !prev.Waiting {
		out = append(out, Waiting)
	}
	if cur.StopBlocks >= n && prev.StopBlocks < n {
		out = append(out, Refused)
	}
	if cur.Paused && !prev.Paused {
		out = append(out, Paused)
	}
	if cur.Cancelled != "" && prev.Cancelled == "" || cur.Outcome == "cancelled" && prev.Outcome != "cancelled" {
		out = append(out, Cancelled)
	} else if cur.Outcome != "" && prev.Outcome == "" {
		out = append(out, Ended)
	}
	return out
}

func describe(kind, project string, s overview.Session) Nudge {
	who := "session " + s.Short
	if s.Harness != "" {
		who = s.Harness + " " + who
	}
	where := project
	if s.Machine != "" {
		where += " on " + s.Machine
	}
	var what string
	switch kind {
	case Waiting:
		what = "waits for you in " + s.State
		if s.Question != "" {
			what += ": " + s.Question
		}
	case Refused:
		what = fmt.Sprintf("was refused %d stops in a row (in %s)", s.StopBlocks, s.State)
	case Paused:
		what = "was paused in " + s.State
	case Cancelled:
		what = "was cancelled"
		if s.Cancelled != "" {
			what += ": " + s.Cancelled
		}
	case Ended:
		what = "ended: " + s.Outcome + " in " + s.State
	}
	return Nudge{Kind: kind, Project: project, Session: s.ID, Short: s.Short, Harness: s.Harness, State: s.State,
		Machine: s.Machine, Checkout: s.Checkout, Text: "hook-loop: " + who + " in " + where + " " + what}
}
