package fakehub

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// maxFutureDriftMS is the hub's HLC drift guard (X-HLC).
const maxFutureDriftMS = 60_000

// Config configures a Hub.
type Config struct {
	// ReplicaID is the hub's replica id; "" mints a 32-hex one from Seed.
	// A legacy 12-hex id ("rep_" + 12 hex) is accepted.
	ReplicaID string
	// Token, when set, is required on /sync/* as "Authorization: Bearer
	// <token>" (the whole header, compared in constant time).
	Token string
	// Wall is the hub's clock; nil means hlc.SystemClock{}.
	Wall hlc.WallClock
	// Seed seeds the id generator.
	Seed uint64
	// Name is the host name /sync/peers reports; "" means "fakehub".
	Name string
}

// Hub is an in-memory Python hub. It is safe for concurrent use.
type Hub struct {
	cfg  Config
	wall hlc.WallClock

	mu        sync.Mutex
	rng       *rand.Rand
	rows      []*row // by rowid - 1
	byID      map[string]*row
	bySlot    map[slot]*row
	artifacts map[string]*artifact
	clockMS   int64 // the hub's HLC state
	clockCtr  int64
	requests  []string // "<path>?<query>" of every request served
}

// row is one events row with its event_artifacts links. Nullable columns
// are pointers.
type row struct {
	rowid                                                     int64
	id, typ, stream, room, fromAgent, body, createdAt, meta   string
	topic, toAgent, correlationID, branch, baseCommit, status *string
	origin                                                    *string
	originSeq                                                 *int64
	hlc                                                       *string
	links                                                     []string
}

type slot struct {
	origin string
	seq    int64
}

// artifact is one artifacts row.
type artifact struct {
	id, kind, sha, content, createdBy, createdAt, meta string
	size                                               int64
	origin                                             *string
}

// New returns an empty hub.
func New(cfg Config) *Hub {
	h := &Hub{
		cfg: cfg, wall: cfg.Wall,
		rng:    rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		byID:   map[string]*row{},
		bySlot: map[slot]*row{},

		artifacts: map[string]*artifact{},
	}
	if h.wall == nil {
		h.wall = hlc.SystemClock{}
	}
	if h.cfg.ReplicaID == "" {
		h.cfg.ReplicaID = "rep_" + h.hexLocked(16)
	}
	if h.cfg.Name == "" {
		h.cfg.Name = "fakehub"
	}
	return h
}

// ReplicaID is the hub's replica id.
func (h *Hub) ReplicaID() string { return h.cfg.ReplicaID }

func (h *Hub) hexLocked(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(h.rng.UintN(256))
	}
	return hex.EncodeToString(b)
}

// newIDLocked is "<prefix>_<YYYYmmddTHHMMSS>_<12 hex>".
func (h *Hub) newIDLocked(prefix string, now time.Time) string {
	return prefix + "_" + now.UTC().Format(pytime.IDLayout) + "_" + h.hexLocked(6)
}

// tickLocked is the hub's HLC tick (X-HLC), rendered with its replica id.
func (h *Hub) tickLocked(now time.Time) string {
	ms := now.UnixMilli()
	switch {
	case ms > h.clockMS:
		h.clockMS, h.clockCtr = ms, 0
	case h.clockCtr < hlc.MaxCounter:
		h.clockCtr++
	default:
		h.clockMS, h.clockCtr = h.clockMS+1, 0
	}
	return renderHLC(h.clockMS, h.clockCtr, h.cfg.ReplicaID)
}

// observeLocked is the hub's HLC observe: adopt a remote stamp that is
// ahead and not beyond the drift guard; unparsable stamps are ignored.
func (h *Hub) observeLocked(stamp string, now time.Time) {
	ts, err := hlc.Parse(stamp)
	if err != nil || ts.WallMS > now.UnixMilli()+maxFutureDriftMS {
		return
	}
	if ts.WallMS > h.clockMS || (ts.WallMS == h.clockMS && int64(ts.Counter) > h.clockCtr) {
		h.clockMS, h.clockCtr = ts.WallMS, int64(ts.Counter)
	}
}

func renderHLC(ms, counter int64, replica string) string {
	return fmt.Sprintf("%013d-%06x-%s", ms, counter, replica)
}

// Write is a local append (mempalace_event_append). Empty optional
// fields are null.
type Write struct {
	Type, Stream, Room, FromAgent                             string
	Topic, ToAgent, CorrelationID, Branch, BaseCommit, Status string
	Body                                                      string
	Metadata                                                  map[string]any // nil means {}
	ArtifactIDs                                               []string
}

// Append stores a local event as the hub does: the hlc is ticked, the
// row takes the next rowid and origin_seq is that rowid. It returns the
// event id. Only what the fake needs is validated.
func (h *Hub) Append(w Write) (string, error) {
	for _, f := range []struct{ v, name string }{{w.Type, "type"}, {w.Stream, "stream"}, {w.Room, "room"}, {w.FromAgent, "from_agent"}} {
		if f.v == "" {
			return "", fmt.Errorf("%s must be a non-empty string", f.name)
		}
	}
	meta, err := rules.Metadata(w.Metadata)
	if err != nil {
		return "", err
	}
	links, err := rules.ArtifactIDs(w.ArtifactIDs)
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range links {
		if h.artifacts[id] == nil {
			return "", fmt.Errorf("artifact_ids references unknown artifact %s", rules.Repr(id))
		}
	}
	now := h.wall.Now()
	stamp := h.tickLocked(now)
	r := &row{
		id: h.newIDLocked("evt", now), typ: w.Type, stream: w.Stream, room: w.Room, fromAgent: w.FromAgent,
		body: w.Body, createdAt: pytime.UTC(now), meta: string(meta),
		topic: nullable(w.Topic), toAgent: nullable(w.ToAgent), correlationID: nullable(w.CorrelationID),
		branch: nullable(w.Branch), baseCommit: nullable(w.BaseCommit), status: nullable(w.Status),
		origin: ptr(h.cfg.ReplicaID), hlc: ptr(stamp), links: links,
	}
	h.insertLocked(r)
	r.originSeq = ptr(r.rowid)
	h.bySlot[slot{h.cfg.ReplicaID, r.rowid}] = r
	return r.id, nil
}

// PutArtifact stores a local artifact (mempalace_artifact_put) and
// returns its id.
func (h *Hub) PutArtifact(kind, content, createdBy string) (string, error) {
	if content == "" || createdBy == "" {
		return "", errors.New("content and created_by must be non-empty strings")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.wall.Now()
	sum := sha256.Sum256([]byte(content))
	a := &artifact{
		id: h.newIDLocked("art", now), kind: kind, sha: hex.EncodeToString(sum[:]), content: content,
		createdBy: createdBy, createdAt: pytime.UTC(now), meta: "{}", size: int64(len(content)),
		origin: ptr(h.cfg.ReplicaID),
	}
	h.artifacts[a.id] = a
	return a.id, nil
}

// insertLocked gives r the next rowid and indexes it.
func (h *Hub) insertLocked(r *row) {
	r.rowid = int64(len(h.rows)) + 1
	h.rows = append(h.rows, r)
	h.byID[r.id] = r
	if r.origin != nil && r.originSeq != nil {
		h.bySlot[slot{*r.origin, *r.originSeq}] = r
	}
}

// VersionVector is version_vector(): origin -> max origin_seq over rows
// with an origin.
func (h *Hub) VersionVector() map[string]int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.vectorLocked()
}

func (h *Hub) vectorLocked() map[string]int64 {
	vv := map[string]int64{}
	for _, r := range h.rows {
		if r.origin != nil && r.originSeq != nil && *r.originSeq > vv[*r.origin] {
			vv[*r.origin] = *r.originSeq
		}
	}
	return vv
}

// listOpsLocked is list_ops after validation: origin's rows with
// origin_seq > after in origin_seq order, at most limit.
func (h *Hub) listOpsLocked(origin string, after int64, limit int) []*row {
	var out []*row
	for _, r := range h.rows {
		if r.origin != nil && *r.origin == origin && r.originSeq != nil && *r.originSeq > after {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *row) int { return cmp.Compare(*a.originSeq, *b.originSeq) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// HasArtifact reports whether the hub holds an artifact.
func (h *Hub) HasArtifact(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.artifacts[id] != nil
}

// Len is the number of events held.
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.rows)
}

// Requests returns the "<path>?<query>" of every request served so far.
func (h *Hub) Requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.requests)
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ptr[T any](v T) *T { return &v }
