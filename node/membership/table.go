package membership

import (
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

// Bounds of the refused set: a refused node stays listed while it keeps
// trying, and is forgotten refusedTTL after its last attempt. At most
// maxRefused are kept (the oldest attempt is evicted first).
const (
	refusedTTL = 10 * time.Minute
	maxRefused = 64
)

// table records every node this node has heard of: accepted members in any
// state (memberlist forgets dead nodes after its reap time; the table keeps
// them until ForgetAfter) and refused nodes. memberlist's delegates update
// it synchronously, under memberlist's node lock, so it never lags behind
// memberlist; the lock below is held only for map operations.
//
// Lock order: memberlist's node lock, then table.mu. Nothing holding
// table.mu calls into memberlist.
type table struct {
	self  string        // this node's name
	probe time.Duration // memberlist's ProbeInterval, for local suspicion
	now   func() time.Time

	mu      sync.Mutex
	members map[string]*Member
	refused map[string]*refusal
	leavers map[string]bool // members that sent a leaving notice since they were last seen up without leaving metadata
}

// refusal is a refused node and its latest attempt.
type refusal struct {
	member Member
	seen   time.Time
}

func newTable(self string, probe time.Duration, now func() time.Time) *table {
	return &table{self: self, probe: probe, now: now, members: map[string]*Member{}, refused: map[string]*refusal{},
		leavers: map[string]bool{}}
}

// upsert records a node that joined, came back or changed its metadata.
func (t *table) upsert(n *memberlist.Node) {
	cur := aliveMember(n, t.now())
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.refused, n.Name)
	if _, leaving, _ := decodeMeta(n.Meta); !leaving {
		delete(t.leavers, n.Name) // up again, and staying: an old notice no longer holds
	}
	prev, ok := t.members[n.Name]
	if !ok {
		cur.Generation = 1
		t.members[n.Name] = &cur
		return
	}
	if prev.State == cur.State && prev.Meta == cur.Meta && prev.Addr == cur.Addr {
		return
	}
	if prev.State == cur.State {
		cur.Since = prev.Since
	}
	cur.Generation = prev.Generation + 1
	*prev = cur
}

// down records a node declared dead or that left: left when its last
// metadata announced its departure (see tagLeaving) or it sent a leaving
// notice (leave.go), dead otherwise.
func (t *table) down(n *memberlist.Node) {
	t.mu.Lock()
	defer t.mu.Unlock()
	state := StateDead
	if _, leaving, _ := decodeMeta(n.Meta); leaving || t.leavers[n.Name] {
		state = StateLeft
	}
	prev, ok := t.members[n.Name]
	if !ok {
		m := aliveMember(n, t.now())
		m.State, m.Generation = state, 1
		t.members[n.Name] = &m
		return
	}
	if prev.State != state {
		prev.State, prev.Since = state, t.now()
		prev.Generation++
	}
}

// leaving records a member's leaving notice: a member recorded dead
// already (memberlist's leave got here first) is now left, and one still
// up is left when it goes down. A notice naming no member is ignored.
func (t *table) leaving(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, ok := t.members[name]
	if !ok {
		return // no member of that name: nothing to mark
	}
	t.leavers[name] = true
	if m.State == StateDead {
		m.State, m.Since = StateLeft, t.now()
		m.Generation++
	}
}

// refuse records a refused node. It reports true when the refusal is new
// (first attempt, a new reason, or the first attempt after it was
// forgotten), which is when it is counted and handed to the Handler.
func (t *table) refuse(m Member) bool {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.refused[m.Name]; ok && r.member.Reason == m.Reason {
		r.seen = now
		return false
	}
	if len(t.refused) >= maxRefused {
		t.evictOldestRefusalLocked()
	}
	m.State, m.Since = StateRefused, now
	t.refused[m.Name] = &refusal{member: m, seen: now}
	return true
}

func (t *table) evictOldestRefusalLocked() {
	oldest := ""
	for name, r := range t.refused {
		if oldest == "" || r.seen.Before(t.refused[oldest].seen) {
			oldest = name
		}
	}
	delete(t.refused, oldest)
}

// acked records a successful probe of name by this node, with its RTT.
func (t *table) acked(name string, rtt time.Duration) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.members[name]; ok {
		m.LastAck, m.RTT = now, rtt
	}
}

// snapshot returns every member, then the refused nodes that are not
// members, sorted by name. An alive peer that this node has not probed
// successfully for suspectCycles probe cycles is reported suspect (see
// StateSuspect).
func (t *table) snapshot() []Member {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	suspectAfter := t.suspectAfterLocked()
	out := make([]Member, 0, len(t.members)+len(t.refused))
	for _, m := range t.members {
		cur := *m
		if cur.State == StateAlive && cur.Name != t.self && now.Sub(latest(cur.LastAck, cur.Since)) > suspectAfter {
			cur.State = StateSuspect
		}
		out = append(out, cur)
	}
	for name, r := range t.refused {
		if _, member := t.members[name]; !member {
			out = append(out, r.member)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// suspectCycles is how many probe cycles without a successful probe make
// an alive peer suspect. memberlist probes every peer once per cycle (the
// order is reshuffled each cycle, so two probes of one peer can be up to
// two cycles apart); three cycles means at least one probe failed.
const suspectCycles = 3

// suspectAfterLocked is suspectCycles probe cycles, a cycle being one
// ProbeInterval per up peer.
func (t *table) suspectAfterLocked() time.Duration {
	peers := 0
	for name, m := range t.members {
		if m.State.Up() && name != t.self {
			peers++
		}
	}
	return time.Duration(suspectCycles*max(1, peers)) * t.probe
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// forget drops dead and left members that changed state before cutoff and
// refusals not attempted for refusedTTL. It returns the members dropped.
func (t *table) forget(cutoff time.Time) []Member {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	var gone []Member
	for name, m := range t.members {
		if !m.State.Up() && m.Since.Before(cutoff) {
			gone = append(gone, *m)
			delete(t.members, name)
			delete(t.leavers, name)
		}
	}
	for name, r := range t.refused {
		if now.Sub(r.seen) > refusedTTL {
			delete(t.refused, name)
		}
	}
	return gone
}
