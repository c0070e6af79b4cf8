package nudge

import (
	"context"
	"fmt"
	"io"

	"github.com/hook-loop/hook-loop/overview"
)

// Look is one project's sessions as they stand.
type Look struct {
	Project  string
	Sessions []overview.Session
}

// Notifier sends the nudges of successive looks at a set of projects.
type Notifier struct {
	Config   Config
	Senders  []Sender
	Detector Detector
	// Show, when set, also gets every nudge (the board's open pages).
	Show func(Nudge)
	// Log gets one line per nudge and per failed delivery (nil: none).
	Log io.Writer
}

// Prime records how look's projects stand without nudging: what was
// already so when the person started watching is not news.
func (n *Notifier) Prime(looks []Look) {
	if n.Config.RefusedStops > 0 && n.Detector.RefusedStops == 0 {
		n.Detector.RefusedStops = n.Config.RefusedStops
	}
	for _, l := range looks {
		n.Detector.Prime(l.Project, l.Sessions)
	}
}

// Run checks look() every time wake fires, until ctx ends (Prime first).
// Deliveries run here, one after the other, each bounded by SendTimeout.
func (n *Notifier) Run(ctx context.Context, wake <-chan struct{}, look func() []Look) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		n.Check(ctx, look())
	}
}

// Check sends what changed since the last look.
func (n *Notifier) Check(ctx context.Context, looks []Look) {
	for _, l := range looks {
		for _, nu := range n.Detector.Observe(l.Project, l.Sessions) {
			if !n.Config.Wants(nu.Kind) {
				continue
			}
			if n.Show != nil {
				n.Show(nu)
			}
			for _, s := range n.Senders {
				if err := s.Send(ctx, nu); err != nil {
					n.logf("hook-loop: nudge not delivered: %v\n", err)
				}
			}
			// Said once delivered: whoever stops the watcher on seeing the
			// line does not cut a delivery short.
			n.logf("%s\n", nu.Text)
		}
	}
}

func (n *Notifier) logf(format string, args ...any) {
	if n.Log != nil {
		fmt.Fprintf(n.Log, format, args...)
	}
}
