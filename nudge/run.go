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

// Run primes the detector with look(), then checks look() again every time
// wake fires, until ctx ends. Deliveries run here, one after the other, each
// bounded by SendTimeout.
func (n *Notifier) Run(ctx context.Context, wake <-chan struct{}, look func() []Look) {
	if n.Config.RefusedStops > 0 && n.Detector.RefusedStops == 0 {
		n.Detector.RefusedStops = n.Config.RefusedStops
	}
	for _, l := range look() {
		n.Detector.Prime(l.Project, l.Sessions)
	}
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
			n.logf("%s\n", nu.Text)
			if n.Show != nil {
				n.Show(nu)
			}
			for _, s := range n.Senders {
				if err := s.Send(ctx, nu); err != nil {
					n.logf("hook-loop: nudge not delivered: %v\n", err)
				}
			}
		}
	}
}

func (n *Notifier) logf(format string, args ...any) {
	if n.Log != nil {
		fmt.Fprintf(n.Log, format, args...)
	}
}
