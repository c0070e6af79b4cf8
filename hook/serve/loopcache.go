package serve

import (
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/pin"
)

// loopCache keeps the loops the co-process has parsed (spec and compiled
// regexes), so that a session's events after the first do not parse its loop
// again: a one-shot hook parses it on every event, which is most of what a
// co-process request costs.
//
// It answers only where pin.Store.Judge would return the parsed loop and do
// nothing else: the session has pinned a loop and there is nothing new to note
// about the loop file (the file holds the pinned loop, or it differs exactly as
// already noted). Every other case (the first event, which pins; a change to
// note; an unreadable pin) goes to Judge itself, so what is logged and refused
// is Judge's. A spec is cached under the hash of the content it was parsed from,
// which a session's pin names, and the loop file's path (the spec carries it):
// a cached loop is used only for a session pinned to that very content. Where
// Judge would read the pin store (the file differs from the pin), the pin is
// still read and checked against its hash on every event, as Judge does: a pin
// deleted or edited under the co-process is refused as it would be one-shot.
//
// dsl.Spec is immutable once loaded, so one parsed spec serves many requests.
// The co-process answers one request at a time: no lock.
type loopCache struct {
	specs map[loopKey]*dsl.Spec
}

type loopKey struct{ hash, path string }

// maxCachedLoops bounds the cache: a co-process sees one project's loop, or a
// few (pi names the loop file per request); past this it starts over.
const maxCachedLoops = 32

func newLoopCache() *loopCache { return &loopCache{specs: map[loopKey]*dsl.Spec{}} }

// Judge is pin.Store.Judge of the default store, with the parse cached.
func (c *loopCache) Judge(tx pin.Tx, sid string, f *pin.File) (*dsl.Spec, string, error) {
	store := pin.Default()
	v := tx.Session(sid)
	if v.Pinned == "" {
		// The session's first event: Judge pins the file's loop. What it
		// parses then is not cached: a pinned session's loop is parsed the way
		// Judge parses a pin (which may differ from a first parse), and the
		// cache must hold exactly that.
		return store.Judge(tx, sid, f)
	}
	observed := "missing"
	if f.Err == nil {
		observed = pin.Hash(f.Data)
	}
	want := observed
	if want == v.Pinned {
		want = ""
	}
	key := loopKey{v.Pinned, f.Path}
	spec, ok := c.specs[key]
	if !ok || want != v.LoopFile {
		// Not parsed yet, or Judge has a change of the file to record.
		return c.judge(tx, sid, f, key, store)
	}
	if observed != v.Pinned {
		// Judge reads the pinned loop from the store here: a pin that is gone
		// or no longer matches its hash must be refused as Judge refuses it.
		if _, err := store.Get(v.Pinned); err != nil {
			return c.judge(tx, sid, f, key, store)
		}
	}
	return spec, "", nil
}

func (c *loopCache) judge(tx pin.Tx, sid string, f *pin.File, key loopKey, store pin.Store) (*dsl.Spec, string, error) {
	spec, notice, err := store.Judge(tx, sid, f)
	if err == nil {
		// What Judge parsed is the content pinned under key.hash (the file,
		// when it holds the pin, else the store's copy checked against it).
		c.put(key, spec)
	}
	return spec, notice, err
}

func (c *loopCache) put(k loopKey, spec *dsl.Spec) {
	if spec == nil {
		return
	}
	if len(c.specs) >= maxCachedLoops {
		clear(c.specs)
	}
	c.specs[k] = spec
}
