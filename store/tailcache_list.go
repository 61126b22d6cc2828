package store

import "sort"

// maxTailScan bounds how many cached events one List examines before it
// gives up and reads SQL (a rare filter over the whole window costs more
// than its index lookup).
const maxTailScan = 20000

// list answers a compiled filter from the window, or reports ok=false
// when it cannot prove its answer equals the SQL answer on the state of
// its version vector: an anchor outside the window, a page that may
// extend below the window, cursor arithmetic on an odd window, a scan too
// long. It returns the page as List does, before preview.
func (t *tailCache) list(c *compiled) (evs []Event, cursor string, ok bool) {
	if t == nil || t.budget <= 0 {
		return nil, "", false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.ready {
		return nil, "", false
	}
	before := t.vv
	lo, hi := c.afterSeq, int64(1)<<62 // exclusive local seq bounds
	if c.since != "" {
		p, held := t.ids[c.since]
		if !held {
			return nil, "", false
		}
		lo = max(lo, t.entry(p).ev.Seq)
	}
	if c.before != "" {
		p, held := t.ids[c.before]
		if !held {
			return nil, "", false
		}
		hi = t.entry(p).ev.Seq
	}
	if c.cursor != nil {
		if t.oddOrigins > 0 {
			return nil, "", false
		}
		start, belowWindow, done := t.firstUncovered(c.cursor, before)
		if done {
			return []Event{}, EncodeCursor(mergeVV(c.cursor, before)), true
		}
		if !belowWindow {
			lo = max(lo, start-1)
		}
	}
	// A match below the window would be older than every match in it: an
	// ascending page, or a descending page that runs out of candidates, is
	// complete only when nothing below the window lies in its range.
	nothingBelow := lo >= t.prevSeq
	page, exhausted, ok := t.scan(c, lo, hi)
	if !ok || (!nothingBelow && (c.order == "asc" || exhausted)) {
		return nil, "", false
	}
	evs = make([]Event, len(page))
	for i, p := range page {
		evs[i] = t.entry(p).ev
		evs[i].Metadata = append([]byte{}, evs[i].Metadata...)
	}
	cursor, ok = t.nextCursor(c, before, evs)
	return evs, cursor, ok
}

// firstUncovered is the local seq of the oldest event the cursor does not
// cover (as firstUncovered in list.go). belowWindow reports that such an
// event is older than the window; done that none is held.
func (t *tailCache) firstUncovered(cursor, held map[string]int64) (start int64, belowWindow, done bool) {
	start = -1
	for origin, top := range held {
		at := cursor[origin]
		if at >= top {
			continue
		}
		if b, ok := t.below[origin]; ok && b > at {
			belowWindow = true
			continue
		}
		l := t.byOrigin[origin]
		if l == nil {
			continue
		}
		live := l.live()
		i := sort.Search(len(live), func(i int) bool { return t.entry(live[i]).ev.OriginSeq > at })
		if i == len(live) {
			continue
		}
		if seq := t.entry(live[i]).ev.Seq; start < 0 || seq < start {
			start = seq
		}
	}
	return start, belowWindow, start < 0 && !belowWindow
}

// scan collects the window positions of the page: matches with local seq
// in (lo, hi), in the page's order, up to the limit. exhausted reports
// that the page is short because the window ran out of candidates.
func (t *tailCache) scan(c *compiled, lo, hi int64) (page []int64, exhausted, ok bool) {
	var lists [][]int64 // nil: every position of the window
	switch c.to {
	case "":
	case "*":
		lists = [][]int64{t.live("*")}
	default:
		lists = [][]int64{t.live(c.to), t.live("*")}
	}
	desc := c.order == "desc"
	cands := t.candidates(lists, lo, hi, desc)
	examined := 0
	for {
		p, more := cands()
		if !more {
			return page, true, true
		}
		examined++
		if examined > maxTailScan {
			return nil, false, false
		}
		e := &t.entry(p).ev
		if !c.eq.matches(e) || (c.cursor != nil && e.OriginSeq <= c.cursor[e.OriginReplica]) {
			continue
		}
		page = append(page, p)
		if len(page) == c.limit {
			return page, false, true
		}
	}
}

func (t *tailCache) live(to string) []int64 {
	if l := t.byTo[to]; l != nil {
		return l.live()
	}
	return nil
}

// candidates iterates positions with local seq in (lo, hi), in seq order
// (descending if desc): from the merged lists, or the whole window when
// lists is nil.
func (t *tailCache) candidates(lists [][]int64, lo, hi int64, desc bool) func() (int64, bool) {
	seqAt := func(p int64) int64 { return t.entry(p).ev.Seq }
	if lists == nil {
		first, end := t.first(), t.end()
		n := int(end - first)
		from := first + int64(sort.Search(n, func(i int) bool { return seqAt(first+int64(i)) > lo }))
		to := first + int64(sort.Search(n, func(i int) bool { return seqAt(first+int64(i)) >= hi }))
		if desc {
			p := to
			return func() (int64, bool) {
				if p <= from {
					return 0, false
				}
				p--
				return p, true
			}
		}
		p := from
		return func() (int64, bool) {
			if p >= to {
				return 0, false
			}
			p++
			return p - 1, true
		}
	}
	// Each list is cut to (lo, hi); the heads are merged on position.
	cut := make([][]int64, len(lists))
	for i, l := range lists {
		a := sort.Search(len(l), func(i int) bool { return seqAt(l[i]) > lo })
		b := sort.Search(len(l), func(i int) bool { return seqAt(l[i]) >= hi })
		cut[i] = l[a:max(a, b)]
	}
	return func() (int64, bool) {
		best := -1
		for i, l := range cut {
			if len(l) == 0 {
				continue
			}
			if best < 0 || (desc && l[len(l)-1] > bestHead(cut[best], desc)) || (!desc && l[0] < bestHead(cut[best], desc)) {
				best = i
			}
		}
		if best < 0 {
			return 0, false
		}
		l := cut[best]
		if desc {
			cut[best] = l[:len(l)-1]
			return l[len(l)-1], true
		}
		cut[best] = l[1:]
		return l[0], true
	}
}

func bestHead(l []int64, desc bool) int64 {
	if desc {
		return l[len(l)-1]
	}
	return l[0]
}

// nextCursor builds the cursor as nextCursor in list.go does, with the
// version vector at a local seq taken from the window.
func (t *tailCache) nextCursor(c *compiled, before map[string]int64, evs []Event) (string, bool) {
	if c.cursor == nil && (len(evs) < c.limit || c.order == "desc") && coveredBy(evs, before) {
		return t.vvCursor, true // merging the page's origins into before changes nothing
	}
	base := c.cursor
	if base == nil {
		base = map[string]int64{}
	}
	seen := map[string]int64{}
	for _, e := range evs {
		if e.OriginSeq > seen[e.OriginReplica] {
			seen[e.OriginReplica] = e.OriginSeq
		}
	}
	if len(evs) < c.limit || c.order == "desc" {
		return EncodeCursor(mergeVV(mergeVV(base, before), seen)), true
	}
	if t.oddOrigins > 0 {
		return "", false
	}
	upTo := make(map[string]int64, len(before))
	last := evs[len(evs)-1].Seq
	for origin := range before {
		if l := t.byOrigin[origin]; l != nil {
			live := l.live()
			i := sort.Search(len(live), func(i int) bool { return t.entry(live[i]).ev.Seq > last })
			if i > 0 {
				upTo[origin] = t.entry(live[i-1]).ev.OriginSeq
				continue
			}
		}
		if b, ok := t.below[origin]; ok {
			upTo[origin] = b
		}
	}
	return EncodeCursor(mergeVV(mergeVV(base, upTo), seen)), true
}

// coveredBy reports whether vv covers every event of evs.
func coveredBy(evs []Event, vv map[string]int64) bool {
	for i := range evs {
		if top, ok := vv[evs[i].OriginReplica]; !ok || evs[i].OriginSeq > top {
			return false
		}
	}
	return true
}
