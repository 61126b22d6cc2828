package store

import "sync"

// eventCache keeps events read by id (Owed's pages) that are older than
// the tail cache's window. Events never change once stored, so a cached
// copy is exact at any time; agents that poll what they owe re-read the
// same old events, which then cost no SQLite read. It holds at most max
// events in two generations: a hit moves an event to the young one, and
// when the young one is full the old one is dropped (an approximate LRU
// with O(1) work and no per-entry bookkeeping).
type eventCache struct {
	mu         sync.Mutex
	max        int
	young, old map[string]Event
}

func newEventCache(maxEvents int) *eventCache {
	return &eventCache{max: maxEvents, young: map[string]Event{}, old: map[string]Event{}}
}

// get returns a copy of the cached event id.
func (c *eventCache) get(id string) (Event, bool) {
	if c.max <= 0 {
		return Event{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.young[id]
	if !ok {
		if e, ok = c.old[id]; ok {
			c.putLocked(e)
		}
	}
	e.Metadata = append([]byte{}, e.Metadata...)
	return e, ok
}

// put caches e as it was read from the database.
func (c *eventCache) put(e Event) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e.Metadata = append([]byte{}, e.Metadata...)
	e.ArtifactIDs = normalArtifactIDs(e.ArtifactIDs)
	c.putLocked(e)
}

func (c *eventCache) putLocked(e Event) {
	if len(c.young) >= c.max/2 {
		c.old, c.young = c.young, make(map[string]Event, c.max/2)
	}
	c.young[e.ID] = e
}
