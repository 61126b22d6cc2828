package store

import (
	"slices"
	"sync"
)

// DefaultTailCacheBytes is the default memory budget of the read cache of
// the log's newest events.
const DefaultTailCacheBytes = 32 << 20

// DefaultTailCacheWarmEvents is how many of the newest events Open reads
// into the read cache by default: enough for the pages agents ask for,
// cheap enough not to delay a start.
const DefaultTailCacheWarmEvents = 16384

// tailEntryOverhead approximates what one cached event costs beyond its
// strings: the Event struct, its index entries and its id map entry.
const tailEntryOverhead = 400

// tailCache holds the log's newest events, decoded once, in local seq
// order, with indexes by to_agent and by origin. The writer feeds it every
// committed event (commit); List answers from it when it can prove the
// answer equals the SQL one (tailcache_list.go) and reads SQL otherwise.
//
// Its window is the suffix of the log from its first entry: every event
// with a larger local seq is in it. Its version vector is the store's at
// the last commit it saw, so a page and the cursor built from that vector
// describe the same state.
type tailCache struct {
	mu     sync.RWMutex
	budget int64 // bytes; <= 0 disables the cache
	used   int64

	// ents[head:] is the window, in local seq order. A slot is a pointer,
	// so the slots the slice keeps spare, or evicted and not yet compacted,
	// cost 8 bytes each rather than an Event.
	ents []*tailEntry
	head int
	base int64 // position of ents[0]; a position never changes meaning

	byTo     map[string]*positions // to_agent ("" for none) -> positions
	byOrigin map[string]*positions // origin_replica -> positions
	ids      map[string]int64      // event id -> position

	origins  map[string]bool  // origin -> ValidReplicaID(origin)
	vv       map[string]int64 // version vector of the window's state; replaced, never mutated
	vvCursor string           // EncodeCursor(vv), the cursor of most pages
	// below holds, per origin, the largest origin_seq of its events older
	// than the window; prevSeq is the local seq of the newest event older
	// than the window (0: the window starts at the log's first event).
	below   map[string]int64
	prevSeq int64
	// oddOrigins counts window events whose origin is not a replica id or
	// whose origin_seq does not grow with the local seq (a foreign file);
	// cursor arithmetic is not answered from the cache while any is held.
	oddOrigins int
	ready      bool // warmed, and consistent with the store
}

// tailEntry is one cached event and its accounted size.
type tailEntry struct {
	ev   Event
	size int64
	odd  bool
}

// positions is an append-only list of window positions, trimmed at the
// front as the window slides.
type positions struct {
	p    []int64
	head int
}

func (l *positions) live() []int64 { return l.p[l.head:] }

func (l *positions) push(p int64) { l.p = append(l.p, p) }

// popFront drops p, which must be the list's first position.
func (l *positions) popFront(p int64) {
	if l.head < len(l.p) && l.p[l.head] == p {
		l.head++
	}
	if l.head > 1024 && l.head*2 > len(l.p) {
		l.p = append([]int64(nil), l.p[l.head:]...)
		l.head = 0
	}
}

func newTailCache(budget int64) *tailCache {
	return &tailCache{budget: budget}
}

// reset empties the cache; it answers nothing until warmed again.
func (t *tailCache) reset() {
	t.ents, t.head, t.base, t.used = nil, 0, 0, 0
	t.byTo, t.byOrigin, t.ids = map[string]*positions{}, map[string]*positions{}, map[string]int64{}
	t.vv, t.below, t.prevSeq, t.oddOrigins = map[string]int64{}, map[string]int64{}, 0, 0
	t.origins = map[string]bool{}
	t.ready = false
}

// entry returns the event at a window position.
func (t *tailCache) entry(p int64) *tailEntry { return t.ents[p-t.base] }

// first and end bound the window's positions: [first, end).
func (t *tailCache) first() int64 { return t.base + int64(t.head) }
func (t *tailCache) end() int64   { return t.base + int64(len(t.ents)) }

// lastSeq is the local seq of the newest event the cache has seen.
func (t *tailCache) lastSeq() int64 {
	if n := len(t.ents); n > t.head {
		return t.ents[n-1].ev.Seq
	}
	return t.prevSeq
}

// add appends an event newer than every cached one. A committed event
// (next) must take the next local seq: SQLite gives a new row the largest
// rowid plus one, so a gap means an event reached the log without passing
// here. add returns false when e does not follow the window, which means
// the cache no longer mirrors the log.
func (t *tailCache) add(e Event, next bool) bool {
	if last := t.lastSeq(); e.Seq <= last || (next && e.Seq != last+1) {
		return false
	}
	e.ArtifactIDs = normalArtifactIDs(e.ArtifactIDs)
	e.Metadata = []byte(string(e.Metadata)) // as read back: never nil, never shared
	e.BodyTruncated, e.BodyLength = false, 0
	size := tailSize(&e)
	odd := !t.validOrigin(e.OriginReplica) || e.OriginSeq <= t.originTop(e.OriginReplica)
	p := t.end()
	t.ents = append(t.ents, &tailEntry{ev: e, size: size, odd: odd})
	if odd {
		t.oddOrigins++
	}
	t.used += size
	listFor(t.byTo, e.ToAgent).push(p)
	listFor(t.byOrigin, e.OriginReplica).push(p)
	t.ids[e.ID] = p
	for t.used > t.budget && t.head < len(t.ents) {
		t.evictOldest()
	}
	return true
}

// validOrigin is ValidReplicaID, remembered per origin (a regexp match
// per event was a sixth of the commit hook).
func (t *tailCache) validOrigin(origin string) bool {
	ok, seen := t.origins[origin]
	if !seen {
		ok = ValidReplicaID(origin)
		t.origins[origin] = ok
	}
	return ok
}

// originTop is the largest origin_seq of origin held or seen below the
// window (-1 when none).
func (t *tailCache) originTop(origin string) int64 {
	if l := t.byOrigin[origin]; l != nil && len(l.live()) > 0 {
		live := l.live()
		return t.entry(live[len(live)-1]).ev.OriginSeq
	}
	if top, ok := t.below[origin]; ok {
		return top
	}
	return -1
}

// tailSize is what the cache accounts for holding e.
func tailSize(e *Event) int64 {
	size := int64(tailEntryOverhead + len(e.ID) + len(e.OriginReplica) + len(e.HLC) + len(e.Type) + len(e.Stream) +
		len(e.Room) + len(e.Topic) + len(e.FromAgent) + len(e.ToAgent) + len(e.CorrelationID) + len(e.Branch) +
		len(e.BaseCommit) + len(e.Status) + len(e.Body) + len(e.CreatedAt) + len(e.Metadata))
	for _, a := range e.ArtifactIDs {
		size += int64(len(a)) + 16
	}
	return size
}

func listFor(m map[string]*positions, key string) *positions {
	l := m[key]
	if l == nil {
		l = &positions{}
		m[key] = l
	}
	return l
}

// evictOldest drops the window's first event.
func (t *tailCache) evictOldest() {
	p := t.first()
	ent := t.entry(p)
	e := &ent.ev
	t.byTo[e.ToAgent].popFront(p)
	if len(t.byTo[e.ToAgent].live()) == 0 {
		delete(t.byTo, e.ToAgent)
	}
	t.byOrigin[e.OriginReplica].popFront(p)
	if len(t.byOrigin[e.OriginReplica].live()) == 0 {
		delete(t.byOrigin, e.OriginReplica)
	}
	delete(t.ids, e.ID)
	if e.OriginSeq > t.below[e.OriginReplica] {
		t.below[e.OriginReplica] = e.OriginSeq
	} else if _, ok := t.below[e.OriginReplica]; !ok {
		t.below[e.OriginReplica] = e.OriginSeq
	}
	t.prevSeq = e.Seq
	t.used -= ent.size
	if ent.odd {
		t.oddOrigins--
	}
	t.ents[t.head] = nil
	t.head++
	if t.head > 4096 && t.head*2 > len(t.ents) {
		t.base += int64(t.head)
		t.ents = append([]*tailEntry(nil), t.ents[t.head:]...)
		t.head = 0
	}
}

// commit feeds the events of one committed write batch, in commit order,
// with the store's version vector after it. Events whose local seq does
// not follow the window leave the cache unready (every read goes to SQL):
// the cache never guesses.
func (t *tailCache) commit(ops []Op, vv map[string]int64) {
	if t == nil || t.budget <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ready {
		return
	}
	for _, op := range ops {
		if !t.add(op.Event, true) {
			t.reset()
			return
		}
	}
	t.setVV(vv)
}

// setVV records the version vector of the window's state.
func (t *tailCache) setVV(vv map[string]int64) {
	t.vv = copyVV(vv)
	t.vvCursor = EncodeCursor(t.vv)
}

func copyVV(vv map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(vv))
	for k, v := range vv {
		out[k] = v
	}
	return out
}

// normalArtifactIDs returns ids as reads return them: sorted, without
// duplicates, never nil.
func normalArtifactIDs(ids []string) []string {
	if len(ids) == 0 {
		return []string{}
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Clip(slices.Compact(out)) // shared by readers: no spare capacity to append into
}

// TailCacheStats describes the read cache: how many events it holds, the
// bytes it accounts for them, and its budget.
type TailCacheStats struct {
	Events int
	Bytes  int64
	Budget int64
	Ready  bool
}

// TailCacheStats reports the read cache's size.
func (s *Store) TailCacheStats() TailCacheStats {
	t := s.tail
	t.mu.RLock()
	defer t.mu.RUnlock()
	return TailCacheStats{Events: len(t.ents) - t.head, Bytes: t.used, Budget: t.budget, Ready: t.ready}
}

// lookup fills out[i] with the cached event ids[i] and returns the
// indexes of the ids it does not hold. Events never change once stored,
// so a cached copy is the stored one whatever state the caller read ids
// from.
func (t *tailCache) lookup(ids []string, out []Event) (missing []int) {
	if t == nil || t.budget <= 0 {
		missing = make([]int, len(ids))
		for i := range ids {
			missing[i] = i
		}
		return missing
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	for i, id := range ids {
		p, ok := t.ids[id]
		if !ok || !t.ready {
			missing = append(missing, i)
			continue
		}
		out[i] = t.entry(p).ev
		out[i].Metadata = append([]byte{}, out[i].Metadata...)
	}
	return missing
}
