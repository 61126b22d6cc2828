package store

import "encoding/json"

// Event is one event of the log in the shape clients see (docs/compatibility.md#event-and-artifact-records). Optional routing fields hold "" for null. Metadata is the canonical
// JSON text of an object.
type Event struct {
	ID            string
	Seq           int64 // local arrival order on this replica only
	OriginReplica string
	OriginSeq     int64
	HLC           string
	Type          string
	Stream        string
	Room          string
	Topic         string
	FromAgent     string
	ToAgent       string
	CorrelationID string
	Branch        string
	BaseCommit    string
	Status        string
	ArtifactIDs   []string
	Body          string
	CreatedAt     string
	Metadata      json.RawMessage

	// Set only on previewed copies whose body was cut (§2.3).
	BodyTruncated bool
	BodyLength    int
}

// Artifact is an exact payload (patch, file, log, json, note).
type Artifact struct {
	ID            string
	Kind          string
	SHA256        string
	SizeBytes     int64
	Content       string
	CreatedBy     string
	CreatedAt     string
	OriginReplica string
	Metadata      json.RawMessage
	Warnings      []string // patch advisories; only on the put record
}

// Op is an event as it travels between replicas: PrevSeq is the origin_seq
// of the op that precedes it in the sender's log for the same origin (0 for
// the first). A receiver applies the op only when PrevSeq equals its own top
// for that origin, which keeps every origin a prefix even when the origin's
// numbering has gaps (Python hubs).
type Op struct {
	Event   Event
	PrevSeq int64

	// Signature is the origin's signature of the op (package opsig); nil
	// when the origin does not sign or the op came through an unsigned
	// path. Applied ops keep it, and OpsAfter returns it, so relays pass
	// it on.
	Signature []byte
	// Refusal, set by the replication layer's integrity check, makes
	// ApplyBatch quarantine the op without consuming its slot.
	Refusal *Refusal
}

// Batch is what one apply call stores in one transaction: artifacts first,
// then ops, then the peer's artifact feed cursor, if any.
type Batch struct {
	Artifacts []Artifact
	Ops       []Op
	// FeedCursor, when set, raises how far into a peer's artifact feed
	// this node's artifacts go (artifact_feed.go).
	FeedCursor *FeedCursor
}

// ApplyResult counts what an apply did.
type ApplyResult struct {
	Applied     int // ops newly stored
	Duplicates  int // ops already held with the same content
	Quarantined int // ops refused with a reason (conflict or invalid)
	Deferred    int // ops that would leave a hole; fetched again later
	Artifacts   int // artifacts newly stored
	// Missing lists artifact ids named by deferred ops and not held; the
	// caller fetches them and applies the ops again.
	Missing []string
	// SkewedOrigins holds the clock offset measured for each applied op whose
	// stamp was beyond the skew bound, keyed by origin (largest seen).
	SkewedOrigins map[string]int64
}

// AppendInput is a local append request. Empty strings mean absent.
type AppendInput struct {
	Type           string
	Stream         string
	Room           string
	Topic          string
	FromAgent      string
	ToAgent        string
	CorrelationID  string
	Branch         string
	BaseCommit     string
	Status         string
	Body           string
	Metadata       json.RawMessage // nil means {}
	ArtifactIDs    []string
	IdempotencyKey string
}

// AckInput acknowledges a target event by appending an event.ack.
type AckInput struct {
	EventID   string
	FromAgent string
	Status    string
	Body      string
	// Topic is the ack's topic; "" copies the target's unless ClearTopic
	// is set (the hub's explicit empty topic, which leaves the ack none).
	Topic          string
	ClearTopic     bool
	IdempotencyKey string
}

// ArtifactInput stores an exact payload.
type ArtifactInput struct {
	Kind           string
	Content        string
	CreatedBy      string
	Metadata       json.RawMessage
	IdempotencyKey string
}

// PatchInput stores a patch artifact and its patch.ready event atomically.
type PatchInput struct {
	Content        string
	FromAgent      string
	Stream         string
	Room           string // "" means the default "patches"
	Topic          string
	ToAgent        string
	CorrelationID  string
	Branch         string
	BaseCommit     string
	Body           string
	Metadata       json.RawMessage
	IdempotencyKey string
}

// TaskInput is mempalace_task_create's input; every field is required.
type TaskInput struct {
	Project        string
	FromAgent      string
	ToAgent        string
	Goal           string
	Branch         string
	BaseCommit     string
	Done           string
	IdempotencyKey string
}

// Written is the result of a local write. Duplicate is true when an
// idempotency key matched an earlier write, whose result is returned.
type Written struct {
	Event     Event
	Artifact  *Artifact
	Duplicate bool
	// SharedName is set when the writing agent name was seen writing
	// through another replica recently (RFC 003 §7.7,
	// docs/architecture.md#rfcs).
	SharedName []string
}

// Filter selects events for list, wait and the SSE stream. Empty fields
// are absent.
type Filter struct {
	Stream        string
	Room          string
	Topic         string
	Type          string
	ToAgent       string // matches X or '*'
	Writer        string // from_agent = X
	CorrelationID string
	Status        string

	SinceEventID string // strictly after this event's local seq
	// SinceName is what errors call SinceEventID ("" means since_event_id):
	// the SSE route names the Last-Event-ID header its client sent.
	SinceName      string
	BeforeEventID  string // strictly before this event's local seq
	SinceCreatedAt string // created_at >= value (inclusive)
	Cursor         string // portable cursor token (docs/architecture.md#portable-cursors)
	AfterSeq       int64  // strictly after this local seq (SSE, internal)

	Limit   int    // 0 means 50; clamped to 500
	Order   string // "asc", "desc" or "" (context default)
	Preview bool

	Scope *ReadScope // what the caller may read; nil: everything
}

// ListResult is a page of events and the portable cursor that resumes
// after it on any replica.
type ListResult struct {
	Events []Event
	Cursor string
	// Cut reports a page cut short at the size bound (Config.MaxPageBytes):
	// more events may follow at once, though the page holds fewer than the
	// limit.
	Cut bool
}

// QuarantineEntry is a remote op or artifact that was refused.
type QuarantineEntry struct {
	ID            int64
	ReceivedAt    string
	OriginReplica string
	OriginSeq     int64
	ItemID        string // event or artifact id
	Reason        string // bounded: invalid, conflict, artifact_invalid, artifact_conflict, signature, unsigned
	Detail        string // the error text
	Payload       json.RawMessage
}

// Stats are cheap counters for status pages and metrics.
type Stats struct {
	Events      int64
	Artifacts   int64
	Quarantined int64
	Origins     int
	DiskBytes   int64
}
