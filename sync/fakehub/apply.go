package fakehub

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// ApplyRemote is apply_remote_event: ev is an event dict as decoded from
// JSON (numbers as json.Number or Go integers). It returns true when the
// event was inserted, false for an echo of the hub's own origin or a
// duplicate (same id, or same origin slot). Errors carry the hub's texts.
//
// As in the hub, nothing else is validated: a type "Task.Request", an
// over-long field or a malformed hlc is stored. The fake refuses only
// what it cannot represent (a text field that is not a string, a
// non-integer origin_seq).
func (h *Hub) ApplyRemote(ev map[string]any) (bool, error) {
	for _, k := range rules.RemoteEventFields {
		if !pyrepr.Truthy(ev[k]) {
			return false, rules.MissingRemoteField("event", k)
		}
	}
	r, err := rowFromDict(ev)
	if err != nil {
		return false, err
	}
	if *r.origin == h.cfg.ReplicaID {
		return false, nil
	}
	if r.topic != nil {
		t, err := rules.Routing(*r.topic, "topic", false)
		if err != nil {
			return false, err
		}
		r.topic = nullable(t)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byID[r.id] != nil || h.bySlot[slot{*r.origin, *r.originSeq}] != nil {
		return false, nil
	}
	for _, id := range r.links {
		if h.artifacts[id] == nil {
			return false, fmt.Errorf("remote event %s references artifact %s not yet applied locally", rules.Repr(r.id), rules.Repr(id))
		}
	}
	h.insertLocked(r)
	h.observeLocked(*r.hlc, h.wall.Now())
	return true, nil
}

// rowFromDict builds a row from an event dict; optional fields absent or
// null are NULL, body defaults to "", metadata is re-canonicalised and
// artifact ids de-duplicated.
func rowFromDict(ev map[string]any) (*row, error) {
	text := func(k string) (*string, error) {
		switch v := ev[k].(type) {
		case nil:
			return nil, nil
		case string:
			return &v, nil
		}
		return nil, fmt.Errorf("fakehub: field %s is not a string", k)
	}
	r := &row{}
	var err error
	var body *string
	for _, f := range []struct {
		key string
		dst **string
	}{
		{"origin_replica", &r.origin}, {"hlc", &r.hlc}, {"topic", &r.topic}, {"to_agent", &r.toAgent},
		{"correlation_id", &r.correlationID}, {"branch", &r.branch}, {"base_commit", &r.baseCommit},
		{"status", &r.status}, {"body", &body},
	} {
		if *f.dst, err = text(f.key); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"id", &r.id}, {"type", &r.typ}, {"stream", &r.stream}, {"room", &r.room}, {"from_agent", &r.fromAgent}, {"created_at", &r.createdAt}} {
		p, err := text(f.key)
		if err != nil {
			return nil, err
		}
		if p != nil {
			*f.dst = *p
		}
	}
	if body != nil {
		r.body = *body
	}
	if v, ok := ev["origin_seq"]; ok && v != nil {
		n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("fakehub: origin_seq %v is not an integer", v)
		}
		r.originSeq = &n
	}
	meta, err := rules.Metadata(ev["metadata"])
	if err != nil {
		return nil, err
	}
	r.meta = string(meta)
	if r.links, err = rules.ArtifactIDs(ev["artifact_ids"]); err != nil {
		return nil, err
	}
	return r, nil
}

// ApplyRemoteArtifact is apply_remote_artifact: the sha256 is checked
// against the content, size_bytes recomputed, origin_replica kept as
// given (it may be null). It returns false for an id already held.
func (h *Hub) ApplyRemoteArtifact(a map[string]any) (bool, error) {
	for _, k := range rules.RemoteArtifactFields {
		if !pyrepr.Truthy(a[k]) {
			return false, rules.MissingRemoteField("artifact", k)
		}
	}
	str := func(k string) string { s, _ := a[k].(string); return s }
	art := &artifact{
		id: str("id"), kind: str("kind"), sha: str("sha256"), content: str("content"),
		createdBy: str("created_by"), createdAt: str("created_at"),
	}
	if o, ok := a["origin_replica"].(string); ok {
		art.origin = &o
	}
	sum := sha256.Sum256([]byte(art.content))
	if got := hex.EncodeToString(sum[:]); got != art.sha {
		return false, rules.ArtifactHashMismatch(art.id, art.sha, got)
	}
	meta, err := rules.Metadata(a["metadata"])
	if err != nil {
		return false, err
	}
	art.meta, art.size = string(meta), int64(len(art.content))
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.artifacts[art.id] != nil {
		return false, nil
	}
	h.artifacts[art.id] = art
	return true, nil
}

// Legacy is an event written by a pre-replication hub (M-LS): no origin,
// no origin_seq, no hlc. CreatedAt is its stamp (YYYY-MM-DDTHH:MM:SSZ).
type Legacy struct {
	Write
	CreatedAt string
}

// ImportPreReplication stores events as a pre-replication hub did, then
// runs the migration's backfill over every row without an origin, as the
// hub does on open (docs/compatibility.md#storage-and-file-format): origin_replica = this hub, origin_seq =
// rowid, hlc = render(created_at in ms, min(rowid, 0xFFFFFF), this hub).
// Artifacts without an origin get this hub's. It returns the event ids.
func (h *Hub) ImportPreReplication(events []Legacy) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]string, len(events))
	for i, e := range events {
		at, err := time.Parse(pytime.UTCLayout, e.CreatedAt)
		if err != nil {
			at = h.wall.Now()
		}
		meta, _ := rules.Metadata(e.Metadata)
		r := &row{
			id: h.newIDLocked("evt", at), typ: e.Type, stream: e.Stream, room: e.Room, fromAgent: e.FromAgent,
			body: e.Body, createdAt: e.CreatedAt, meta: string(meta), topic: nullable(e.Topic),
			toAgent: nullable(e.ToAgent), correlationID: nullable(e.CorrelationID), status: nullable(e.Status),
			links: e.ArtifactIDs,
		}
		h.insertLocked(r)
		ids[i] = r.id
	}
	h.backfillLocked()
	return ids
}

// backfillLocked is the migration's backfill.
func (h *Hub) backfillLocked() {
	for _, r := range h.rows {
		if r.origin != nil {
			continue
		}
		var ms int64
		if t, err := time.Parse(pytime.UTCLayout, r.createdAt); err == nil {
			ms = t.UnixMilli()
		}
		r.origin, r.originSeq = ptr(h.cfg.ReplicaID), ptr(r.rowid)
		r.hlc = ptr(renderHLC(ms, min(r.rowid, hlc.MaxCounter), h.cfg.ReplicaID))
		h.bySlot[slot{h.cfg.ReplicaID, r.rowid}] = r
	}
	for _, a := range h.artifacts {
		if a.origin == nil {
			a.origin = ptr(h.cfg.ReplicaID)
		}
	}
}

// InsertRaw stores an event row as given, unchecked, as a hand-edited or
// damaged hub file would hold it: absent keys are NULL (an absent hlc
// included), body defaults to "". It takes the next rowid and returns it.
// It is how tests seed ops that no apply path would store.
func (h *Hub) InsertRaw(ev map[string]any) (int64, error) {
	r, err := rowFromDict(ev)
	if err != nil {
		return 0, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.insertLocked(r)
	return r.rowid, nil
}

// DropArtifact deletes an artifact row and keeps the links that name it,
// so /sync/artifact answers 404 for an id an event still names.
func (h *Hub) DropArtifact(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.artifacts, id)
}

// TamperArtifact replaces an artifact's content and keeps its sha256, so
// a puller's hash check fails.
func (h *Hub) TamperArtifact(id, content string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a := h.artifacts[id]; a != nil {
		a.content, a.size = content, int64(len(content))
	}
}
