// Package fleet is the live overview of every project a person runs agents
// in: the projects of the user's registry (package roster) on their JSONL
// logs, and, with a PostgreSQL store, every project in the store. Each project
// is an overview.Watcher with the controls that act on its own log; the set is
// read again now and then, so projects that start meanwhile appear.
package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/operator"
	"github.com/hook-loop/hook-loop/overview"
	"github.com/hook-loop/hook-loop/project/identity"
	"github.com/hook-loop/hook-loop/project/roster"
)

// DefaultRescan is how often the registry and the store's project list are
// read again for projects that appeared or went.
const DefaultRescan = 5 * time.Second

// Options say where the projects are.
type Options struct {
	// StateDir is hook-loop's user state directory (project.UserStateDir).
	StateDir string
	// StoreURL is the team's PostgreSQL store, "" for none.
	StoreURL string
	// Getenv is os.Getenv outside tests (project identities read it).
	Getenv    func(string) string
	Rescan    time.Duration // default DefaultRescan
	StorePoll time.Duration // overview.Options.StorePoll
	// Engine builds the engine a project's controls act with (the person's
	// lifecycle hooks loaded, as the one-project board and the CLI do); nil:
	// the loop alone.
	Engine func(spec *dsl.Spec, root string) *engine.Engine
}

// Project is one project's live overview and the controls on its log.
type Project struct {
	Key   string // stable and URL-safe: the board's routes name projects by it
	Name  string // the project's root (files) or its identity in the store
	Where string // its log, for messages
	Store bool   // the log is the team's store
	// Watcher is the project's sessions; Controls act on the same log.
	Watcher  *overview.Watcher
	Controls operator.Controls

	close func() error
	stop  context.CancelFunc // ends the project's follower in Run; nil before
}

// Fleet is the set of projects. Its methods are safe for concurrent use.
type Fleet struct {
	opts Options

	mu       sync.Mutex
	projects map[string]*Project
	warnings []string
	added    chan *Project // to a running Run
	lister   *postgres.Store[session.View, *session.View]
}

// Open opens every project now registered and, with a store, every project
// in the store.
func Open(o Options) (*Fleet, error) {
	if o.Rescan <= 0 {
		o.Rescan = DefaultRescan
	}
	f := &Fleet{opts: o, projects: map[string]*Project{}, added: make(chan *Project, 64)}
	if o.StoreURL != "" {
		s, err := postgres.Open[session.View](o.StoreURL, postgres.Options{Project: "-"})
		if err != nil {
			return nil, err
		}
		f.lister = s
	}
	if err := f.rescan(); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// want is a project the registry or the store names.
type want struct {
	key, name, where string
	store            bool
	config           string // the loop file ("" none known)
	root             string
	log              string
}

func keyOf(kind, name string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + name))
	return hex.EncodeToString(sum[:8])
}

// rescan opens what is new and closes what went.
func (f *Fleet) rescan() error {
	entries, warns, err := roster.List(f.opts.StateDir)
	if err != nil {
		return err
	}
	var wants []want
	storeLoops := map[string]want{} // a local checkout's loop file, by store identity
	for _, e := range entries {
		if e.Store {
			if f.lister != nil {
				storeLoops[identity.Of(e.Root, f.opts.Getenv)] = want{config: e.Config, root: e.Root}
			}
			continue
		}
		wants = append(wants, want{key: keyOf("file", e.Log), name: e.Root, where: e.Log, config: e.Config, root: e.Root, log: e.Log})
	}
	if f.lister != nil {
		ids, err := f.lister.Projects(context.Background())
		if err != nil {
			// The machine's own projects are shown all the same; the
			// store's are kept until it answers again.
			warns = append(warns, fmt.Sprintf("list the store's projects: %v", err))
			f.mu.Lock()
			for _, p := range f.projects {
				if p.Store {
					wants = append(wants, want{key: p.Key})
				}
			}
			f.mu.Unlock()
		}
		for _, id := range ids {
			w := want{key: keyOf("store", id), name: id, where: f.lister.Where() + " (project " + id + ")", store: true}
			if l, ok := storeLoops[id]; ok {
				w.config, w.root = l.config, l.root
			}
			wants = append(wants, w)
		}
	}
	f.mu.Lock()
	f.warnings = warns
	var todo []want
	seen := map[string]bool{}
	for _, w := range wants {
		seen[w.key] = true
		if f.projects[w.key] == nil {
			todo = append(todo, w)
		}
	}
	var gone []*Project
	for k, p := range f.projects {
		if !seen[k] {
			gone = append(gone, p)
			delete(f.projects, k)
		}
	}
	f.mu.Unlock()
	for _, p := range gone {
		f.mu.Lock()
		if p.stop != nil {
			p.stop()
		}
		f.mu.Unlock()
		_ = p.close()
	}
	// Opening reads each log's index and end: in parallel, a core each.
	opened := make([]*Project, len(todo))
	errs := make([]error, len(todo))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, w := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			opened[i], errs[i] = f.open(w)
		}()
	}
	wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, p := range opened {
		if errs[i] != nil {
			// One unreadable project does not hide the others.
			f.warnings = append(f.warnings, fmt.Sprintf("%s: %v", todo[i].where, errs[i]))
			continue
		}
		f.projects[p.Key] = p
		select {
		case f.added <- p:
		default: // no Run yet: Run starts every project it finds
		}
	}
	return nil
}

// open builds one project's watcher and controls.
func (f *Fleet) open(w want) (*Project, error) {
	var spec *dsl.Spec
	if w.config != "" {
		if s, _, err := dsl.Load(w.config); err == nil {
			spec = s
		}
	}
	o := overview.Options{Spec: spec, Root: w.root, StorePoll: f.opts.StorePoll}
	p := &Project{Key: w.key, Name: w.name, Where: w.where, Store: w.store}
	var log operator.Log
	if w.store {
		s, err := postgres.Open[session.View](f.opts.StoreURL, postgres.Options{Project: w.name})
		if err != nil {
			return nil, err
		}
		o.Store, log, p.close = s, storeLog{s}, s.Close
	} else {
		l := session.Open(w.log)
		o.Log, log, p.close = l, operator.FileLog(l), func() error { return nil }
	}
	wt, err := overview.Open(o)
	if err != nil {
		_ = p.close()
		return nil, err
	}
	p.Watcher = wt
	p.Controls = operator.Controls{Log: log}
	switch {
	case spec != nil && f.opts.Engine != nil:
		p.Controls.Engine = f.opts.Engine(spec, w.root)
	case spec != nil:
		p.Controls.Engine = &engine.Engine{Spec: spec, Root: w.root}
	}
	return p, nil
}

// storeLog is the store as the controls' log.
type storeLog struct {
	s *postgres.Store[session.View, *session.View]
}

func (d storeLog) Update(fn func(tx engine.Tx) error) error {
	return d.s.Update(func(tx *postgres.Tx[session.View, *session.View]) error { return fn(tx) })
}

func (d storeLog) View(fn func(tx engine.Tx) error) error {
	return d.s.View(func(tx *postgres.Tx[session.View, *session.View]) error { return fn(tx) })
}

func (d storeLog) LockWait() time.Duration { return d.s.LockWait() }

// Projects returns the projects, those with a session waiting for a person
// first, then by name.
func (f *Fleet) Projects() []*Project {
	f.mu.Lock()
	out := make([]*Project, 0, len(f.projects))
	for _, p := range f.projects {
		out = append(out, p)
	}
	f.mu.Unlock()
	waiting := map[string]bool{}
	for _, p := range out {
		for _, s := range p.Watcher.Sessions() {
			if s.Waiting {
				waiting[p.Key] = true
				break
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if waiting[out[a].Key] != waiting[out[b].Key] {
			return waiting[out[a].Key]
		}
		if out[a].Name != out[b].Name {
			return out[a].Name < out[b].Name
		}
		return out[a].Key < out[b].Key
	})
	return out
}

// Project returns one project by its key.
func (f *Fleet) Project(key string) *Project {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.projects[key]
}

// Warnings are what could not be read: registry entries, projects.
func (f *Fleet) Warnings() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.warnings...)
}

// Run follows every project until ctx ends, calling changed (from any
// goroutine) after each change, and reads the set again every Rescan.
func (f *Fleet) Run(ctx context.Context, changed func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	errc := make(chan error, 1)
	start := func(p *Project) {
		if p.stop != nil {
			return
		}
		pctx, stop := context.WithCancel(ctx)
		p.stop = stop
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Watcher.Run(pctx, changed); err != nil && pctx.Err() == nil {
				f.mu.Lock()
				f.warnings = append(f.warnings, fmt.Sprintf("%s: %v", p.Where, err))
				f.mu.Unlock()
				select {
				case errc <- nil:
				default:
				}
			}
		}()
	}
	f.mu.Lock()
	for _, p := range f.projects {
		start(p)
	}
	f.mu.Unlock()
	tick := time.NewTicker(f.opts.Rescan)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case p := <-f.added:
			f.mu.Lock()
			start(p)
			f.mu.Unlock()
			changed()
		case <-errc:
			changed()
		case <-tick.C:
			n := len(f.Projects())
			if err := f.rescan(); err != nil {
				f.mu.Lock()
				f.warnings = append(f.warnings, err.Error())
				f.mu.Unlock()
			}
			if len(f.Projects()) != n {
				changed()
			}
		}
	}
}

// Close closes every project's log.
func (f *Fleet) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.projects {
		_ = p.close()
	}
	f.projects = map[string]*Project{}
	if f.lister != nil {
		_ = f.lister.Close()
	}
}
