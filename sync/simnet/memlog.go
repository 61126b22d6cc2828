package simnet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
)

// MemLog is an in-memory lssync.Log with the store's apply rules: every
// origin is a prefix (an op is applied only when its PrevSeq is the held
// top), duplicates are no-ops, a different op in a held slot or id is
// quarantined, events wait for the artifacts they name, and artifacts are
// verified by sha256. Local ops are numbered 1, 2, 3, ... It keeps an
// artifact feed (lssync.ArtifactFeed) as the store does.
type MemLog struct {
	mu         sync.Mutex
	id         string
	wall       func() time.Time
	hlcPhys    int64
	hlcLogical int64
	ops        map[string][]store.Op // origin -> ops in origin order
	ids        map[string]store.Event
	artifacts  map[string]store.Artifact
	quarantine []string
	subs       []*memSub
	feed       memFeed
}

var (
	_ lssync.Log          = (*MemLog)(nil)
	_ lssync.ArtifactFeed = (*MemLog)(nil)
)

// NewMemLog returns an empty log for replica id; wall is its wall clock.
func NewMemLog(id string, wall func() time.Time) *MemLog {
	return &MemLog{
		id:        id,
		wall:      wall,
		ops:       map[string][]store.Op{},
		ids:       map[string]store.Event{},
		artifacts: map[string]store.Artifact{},
	}
}

// ReplicaID implements lssync.Log.
func (m *MemLog) ReplicaID() string { return m.id }

// VersionVector implements lssync.Log.
func (m *MemLog) VersionVector() map[string]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	vv := make(map[string]int64, len(m.ops))
	for origin, ops := range m.ops {
		vv[origin] = ops[len(ops)-1].Event.OriginSeq
	}
	return vv
}

// Append stores a local event; with an artifact body it first stores an
// artifact the event names (so replication must ship it ahead).
func (m *MemLog) Append(body string, artifact bool) store.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	held := m.ops[m.id]
	seq := int64(len(held)) + 1
	e := store.Event{
		ID:            fmt.Sprintf("evt_%s_%d", m.id, seq),
		OriginReplica: m.id,
		OriginSeq:     seq,
		HLC:           m.tickLocked(),
		Type:          "note",
		Stream:        "sim",
		Room:          "main",
		FromAgent:     "agent-" + m.id,
		ToAgent:       "*",
		Body:          body,
		CreatedAt:     m.wall().UTC().Format(time.RFC3339Nano),
		Metadata:      []byte(`{}`),
	}
	if artifact {
		a := newArtifact(e.ID, body, m.id)
		m.storeArtifactLocked(a)
		e.ArtifactIDs = []string{a.ID}
	}
	m.storeLocked(e)
	return e
}

func newArtifact(eventID, content, origin string) store.Artifact {
	sum := sha256.Sum256([]byte(content))
	return store.Artifact{
		ID: "art_" + eventID, Kind: "note", SHA256: hex.EncodeToString(sum[:]),
		SizeBytes: int64(len(content)), Content: content, CreatedBy: "sim",
		CreatedAt: "2026-01-01T00:00:00Z", OriginReplica: origin, Metadata: []byte(`{}`),
	}
}

func (m *MemLog) storeLocked(e store.Event) {
	held := m.ops[e.OriginReplica]
	prev := int64(0)
	if len(held) > 0 {
		prev = held[len(held)-1].Event.OriginSeq
	}
	op := store.Op{Event: e, PrevSeq: prev}
	m.ops[e.OriginReplica] = append(held, op)
	m.ids[e.ID] = e
	m.notifyLocked([]store.Op{op})
}

// tickLocked issues a local HLC stamp greater than any issued or observed.
func (m *MemLog) tickLocked() string {
	pt := m.wall().UnixNano()
	if pt > m.hlcPhys {
		m.hlcPhys, m.hlcLogical = pt, 0
	} else {
		m.hlcLogical++
	}
	return fmt.Sprintf("%020d.%08d", m.hlcPhys, m.hlcLogical)
}

func (m *MemLog) observeLocked(stamp string) {
	var pt, lc int64
	if _, err := fmt.Sscanf(stamp, "%d.%d", &pt, &lc); err != nil {
		return
	}
	if pt > m.hlcPhys || (pt == m.hlcPhys && lc > m.hlcLogical) {
		m.hlcPhys, m.hlcLogical = pt, lc
	}
}

// OpsAfter implements lssync.Log.
func (m *MemLog) OpsAfter(_ context.Context, origin string, after int64, limit, maxBytes int) ([]store.Op, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	held := m.ops[origin]
	i, _ := slices.BinarySearchFunc(held, after+1, func(op store.Op, seq int64) int {
		return int(op.Event.OriginSeq - seq)
	})
	var out []store.Op
	size := 0
	for ; i < len(held) && len(out) < limit; i++ {
		size += len(held[i].Event.Body) + 200
		if len(out) > 0 && size > maxBytes {
			break
		}
		out = append(out, held[i])
	}
	return out, nil
}

// GetArtifact implements lssync.Log.
func (m *MemLog) GetArtifact(_ context.Context, id string) (store.Artifact, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.artifacts[id]
	if !ok {
		return store.Artifact{}, fmt.Errorf("artifact %q: %w", id, store.ErrNotFound)
	}
	return a, nil
}

// ApplyBatch implements lssync.Log with the store's rules.
func (m *MemLog) ApplyBatch(_ context.Context, b store.Batch) (store.ApplyResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var res store.ApplyResult
	for _, a := range b.Artifacts {
		m.applyArtifactLocked(a, &res)
	}
	if c := b.FeedCursor; c != nil {
		m.storeCursorLocked(*c)
	}
	var applied []store.Op
	for _, op := range b.Ops {
		if m.applyOpLocked(op, &res) {
			held := m.ops[op.Event.OriginReplica]
			applied = append(applied, held[len(held)-1])
		}
	}
	if len(applied) > 0 {
		m.notifyLocked(applied)
	}
	return res, nil
}

func (m *MemLog) applyArtifactLocked(a store.Artifact, res *store.ApplyResult) {
	if _, ok := m.artifacts[a.ID]; ok {
		return
	}
	sum := sha256.Sum256([]byte(a.Content))
	if hex.EncodeToString(sum[:]) != a.SHA256 {
		m.quarantine = append(m.quarantine, "artifact "+a.ID+": sha256 mismatch")
		res.Quarantined++
		return
	}
	m.storeArtifactLocked(a)
	res.Artifacts++
}

// applyOpLocked applies one op and reports whether it was stored.
func (m *MemLog) applyOpLocked(op store.Op, res *store.ApplyResult) bool {
	e := op.Event
	if e.ID == "" || e.OriginReplica == "" || e.OriginSeq <= 0 || e.HLC == "" {
		m.quarantine = append(m.quarantine, "invalid op "+e.ID)
		res.Quarantined++
		return false
	}
	if held, ok := m.ids[e.ID]; ok {
		m.sameOrQuarantineLocked(held, e, res)
		return false
	}
	if held, ok := m.slotLocked(e.OriginReplica, e.OriginSeq); ok {
		m.sameOrQuarantineLocked(held, e, res)
		return false
	}
	top := int64(0)
	if held := m.ops[e.OriginReplica]; len(held) > 0 {
		top = held[len(held)-1].Event.OriginSeq
	}
	if op.PrevSeq != top || e.OriginSeq <= top || !m.hasArtifactsLocked(e) {
		res.Deferred++
		return false
	}
	m.observeLocked(e.HLC)
	e.Seq = 0
	held := m.ops[e.OriginReplica]
	m.ops[e.OriginReplica] = append(held, store.Op{Event: e, PrevSeq: top})
	m.ids[e.ID] = e
	res.Applied++
	return true
}

func (m *MemLog) slotLocked(origin string, seq int64) (store.Event, bool) {
	held := m.ops[origin]
	i, ok := slices.BinarySearchFunc(held, seq, func(op store.Op, s int64) int {
		return int(op.Event.OriginSeq - s)
	})
	if !ok {
		return store.Event{}, false
	}
	return held[i].Event, true
}

func (m *MemLog) hasArtifactsLocked(e store.Event) bool {
	for _, id := range e.ArtifactIDs {
		if _, ok := m.artifacts[id]; !ok {
			return false
		}
	}
	return true
}

func (m *MemLog) sameOrQuarantineLocked(held, got store.Event, res *store.ApplyResult) {
	if SameEvent(held, got) {
		res.Duplicates++
		return
	}
	m.quarantine = append(m.quarantine, fmt.Sprintf("conflict: held %s, got %s", held.ID, got.ID))
	res.Quarantined++
}

// SameEvent compares two events field by field, ignoring the local Seq
// and treating nil and empty slices alike.
func SameEvent(a, b store.Event) bool {
	a.Seq, b.Seq = 0, 0
	if !slices.Equal(a.ArtifactIDs, b.ArtifactIDs) || !bytes.Equal(a.Metadata, b.Metadata) {
		return false
	}
	a.ArtifactIDs, b.ArtifactIDs, a.Metadata, b.Metadata = nil, nil, nil, nil
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// Ops returns every held op of origin in origin order.
func (m *MemLog) Ops(origin string) []store.Op {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.ops[origin])
}

// Quarantined returns the reasons of everything quarantined so far.
func (m *MemLog) Quarantined() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.quarantine)
}

// Subscribe implements lssync.Log.
func (m *MemLog) Subscribe(buffer int) lssync.Subscription {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &memSub{ch: make(chan []store.Op, buffer)}
	m.subs = append(m.subs, s)
	return s
}

func (m *MemLog) notifyLocked(ops []store.Op) {
	live := m.subs[:0]
	for _, s := range m.subs {
		if s.offer(ops) {
			live = append(live, s)
		}
	}
	m.subs = live
}

// memSub is a MemLog subscription.
type memSub struct {
	mu     sync.Mutex
	ch     chan []store.Op
	lagged atomic.Bool
	closed bool
}

// offer delivers without blocking; a full buffer marks the subscription
// lagged and closes it. It reports whether the subscription is still live.
func (s *memSub) offer(ops []store.Op) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	select {
	case s.ch <- ops:
		return true
	default:
		s.lagged.Store(true)
		s.closed = true
		close(s.ch)
		return false
	}
}

func (s *memSub) C() <-chan []store.Op { return s.ch }
func (s *memSub) Lagged() bool         { return s.lagged.Load() }

func (s *memSub) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
}
