package board

import (
	"github.com/hook-loop/hook-loop/fleet"
	"github.com/hook-loop/hook-loop/nudge"
	"github.com/hook-loop/hook-loop/overview"
)

// groupView is one project on a board over every project.
type groupView struct {
	Key, Name, Where string
	Store            bool
	Loop             string
	Sessions         []sessionView
	Waiting          int
}

// NewAll returns a board over every project of f, with a fresh token.
func NewAll(f *fleet.Fleet) (*Server, error) {
	s, err := New(nil, nil, "all projects")
	if err != nil {
		return nil, err
	}
	s.Fleet = f
	return s, nil
}

// allData is the page of a board over every project: projects with a session
// waiting for a person first, each project's waiting sessions first.
func (s *Server) allData() pageData {
	d := pageData{All: true, Project: s.Project, Token: s.Token}
	for _, w := range s.Fleet.Warnings() {
		if d.Warning != "" {
			d.Warning += "; "
		}
		d.Warning += w
	}
	for _, p := range s.Fleet.Projects() {
		g := groupView{Key: p.Key, Name: p.Name, Where: p.Where, Store: p.Store}
		def := p.Watcher.Definition()
		if def != nil {
			g.Loop = def.ID
		}
		for _, ss := range p.Watcher.Sessions() {
			v := sessionView{Session: ss, ProjectKey: p.Key, ProjectName: p.Name,
				Actions: actionsFor(ss, def), Recent: make([]overview.Entry, len(ss.Timeline))}
			if p.Controls.Engine == nil {
				v.Actions = nil // without the project's loop, the controls refuse
			}
			for i, e := range ss.Timeline {
				v.Recent[len(ss.Timeline)-1-i] = e
			}
			if def != nil {
				v.SVG = s.diagram(p.Key, def, ss.State)
			}
			g.Sessions = append(g.Sessions, v)
			d.Sessions = append(d.Sessions, v)
			if ss.Waiting {
				g.Waiting++
				d.Waiting = append(d.Waiting, v)
			}
		}
		d.Groups = append(d.Groups, g)
	}
	return d
}

// projectSessions is one project in GET /api/sessions of a board over every
// project.
type projectSessions struct {
	Project  string             `json:"project"`
	Key      string             `json:"key"`
	Where    string             `json:"where"`
	Store    bool               `json:"store,omitempty"`
	Sessions []overview.Session `json:"sessions"`
}

func (s *Server) allSessions() []projectSessions {
	out := []projectSessions{}
	for _, p := range s.Fleet.Projects() {
		ss := p.Watcher.Sessions()
		if ss == nil {
			ss = []overview.Session{}
		}
		out = append(out, projectSessions{Project: p.Name, Key: p.Key, Where: p.Where, Store: p.Store, Sessions: ss})
	}
	return out
}

// version changes whenever what the board shows does.
func (s *Server) version() uint64 {
	if s.Fleet == nil {
		return s.Watcher.Version()
	}
	ps := s.Fleet.Projects()
	v := uint64(len(ps))
	for _, p := range ps {
		v += p.Watcher.Version()
	}
	return v
}

// Nudge shows n as a browser notification on every open page.
func (s *Server) Nudge(n nudge.Nudge) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.nudges {
		select {
		case c <- n:
		default: // a page that does not keep up misses it; the board shows the state anyway
		}
	}
}

func (s *Server) subscribeNudges() chan nudge.Nudge {
	c := make(chan nudge.Nudge, 16)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nudges == nil {
		s.nudges = map[chan nudge.Nudge]bool{}
	}
	s.nudges[c] = true
	return c
}

func (s *Server) unsubscribeNudges(c chan nudge.Nudge) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.nudges, c)
}
