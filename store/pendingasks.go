package store

import (
	"strconv"
	"sync"
)

// pendingAsks lists by asker the events past the owed mark that may be
// owed (owedlag.go), so that Awaiting reads its asker's few of them, not
// the few thousand the mark may lag by: the events table has no index by
// from_agent, which would cost every commit a page per writing agent.
// The writer adds a transaction's events after its commit and empties the
// lists when the owed rows are written; readers copy an asker's list. A
// reader then takes the events the list covers by rowid, and reads the
// ones committed since the list was copied (rowid > upTo) from the events
// table, in the same snapshot as the owed rows: a list copied before a
// commit or before the owed rows are written still leaves out nothing.
type pendingAsks struct {
	mu sync.Mutex
	// upTo: every event that may be owed with a rowid above the owed mark
	// and at most upTo is listed.
	upTo    int64
	byAsker map[string][]int64 // rowids, ascending
}

// add lists the events that may be owed of a committed transaction whose
// largest rowid is top.
func (p *pendingAsks) add(top int64, evs []mayOwe) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byAsker == nil {
		p.byAsker = map[string][]int64{}
	}
	for _, e := range evs {
		p.byAsker[e.from] = append(p.byAsker[e.from], e.rowid)
	}
	p.upTo = max(p.upTo, top)
}

// reset empties the lists once every event up to mark has its owed row.
func (p *pendingAsks) reset(mark int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.byAsker)
	p.upTo = max(p.upTo, mark)
}

// of returns asker's listed rowids as a JSON array, and upTo.
func (p *pendingAsks) of(asker string) (rowids string, upTo int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := []byte{'['}
	for i, r := range p.byAsker[asker] {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, r, 10)
	}
	return string(append(b, ']')), p.upTo
}
