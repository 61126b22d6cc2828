package store

import "sync"

// eventCache keeps events read by id (Owed's pages) that are older than
// the tail cache's window. Events never change once stored, so a cached
// copy is exact at any time; agents that poll what they owe re-read the
// same old events, which then cost no SQLite read. It holds at most max
// events; a full cache drops an arbitrary one (Go's map iteration order)
// for each new one, which, unlike LRU, keeps a share of a cyclic working
// set larger than the cache.
type eventCache struct {
	mu  sync.RWMutex
	max int
	m   map[string]Event
}

func newEventCache(maxEvents int) *eventCache {
	return &eventCache{max: maxEvents, m: map[string]Event{}}
}

// get returns a copy of the cached event id.
func (c *eventCache) get(id string) (Event, bool) {
	if c.max <= 0 {
		return Event{}, false
	}
	c.mu.RLock()
	e, ok := c.m[id]
	c.mu.RUnlock()
	e.Metadata = append([]byte{}, e.Metadata...)
	return e, ok
}

// put caches e as it was read from the database.
func (c *eventCache) put(e Event) {
	if c.max <= 0 {
		return
	}
	e.Metadata = append([]byte{}, e.Metadata...)
	e.ArtifactIDs = normalArtifactIDs(e.ArtifactIDs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, held := c.m[e.ID]; !held && len(c.m) >= c.max {
		for id := range c.m {
			delete(c.m, id)
			break
		}
	}
	c.m[e.ID] = e
}
