package store

import "sync"

// eventCache keeps events read by id (Owed's pages) that are older than
// the tail cache's window. Events never change once stored, so a cached
// copy is exact at any time; agents that poll what they owe re-read the
// same old events, which then cost no SQLite read. It holds at most
// budget bytes (as tailSize counts them); a full cache drops arbitrary
// entries (Go's map iteration order) for a new one, which, unlike LRU,
// keeps a share of a cyclic working set larger than the cache.
type eventCache struct {
	mu     sync.RWMutex
	budget int64
	used   int64
	m      map[string]Event
}

func newEventCache(budget int64) *eventCache {
	return &eventCache{budget: budget, m: map[string]Event{}}
}

// get returns a copy of the cached event id.
func (c *eventCache) get(id string) (Event, bool) {
	if c.budget <= 0 {
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
	e.Metadata = append([]byte{}, e.Metadata...)
	e.ArtifactIDs = normalArtifactIDs(e.ArtifactIDs)
	size := tailSize(&e)
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, held := c.m[e.ID]; held {
		return
	}
	for id, old := range c.m {
		if c.used+size <= c.budget {
			break
		}
		delete(c.m, id)
		c.used -= tailSize(&old)
	}
	c.m[e.ID] = e
	c.used += size
}
