package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/lsnode/lsnode/internal/jsonstr"
)

// MarshalJSON renders the event dict of docs/compatibility.md#event-and-artifact-records, keys in the Python
// hub's order, "" optional fields as null, metadata as an object. It
// appends into one buffer: every MCP result, SSE frame and sync page that
// carries events renders them here.
func (e Event) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, e.jsonSizeHint())
	b = append(b, `{"id":`...)
	b = jsonstr.Append(b, e.ID, false)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"origin_replica":`...)
	b = jsonstr.Append(b, e.OriginReplica, false)
	b = append(b, `,"origin_seq":`...)
	b = strconv.AppendInt(b, e.OriginSeq, 10)
	b = append(b, `,"hlc":`...)
	b = jsonstr.Append(b, e.HLC, false)
	b = append(b, `,"type":`...)
	b = jsonstr.Append(b, e.Type, false)
	b = append(b, `,"stream":`...)
	b = jsonstr.Append(b, e.Stream, false)
	b = append(b, `,"room":`...)
	b = jsonstr.Append(b, e.Room, false)
	b = append(b, `,"topic":`...)
	b = appendJSONNullable(b, e.Topic)
	b = append(b, `,"from_agent":`...)
	b = jsonstr.Append(b, e.FromAgent, false)
	b = append(b, `,"to_agent":`...)
	b = appendJSONNullable(b, e.ToAgent)
	b = append(b, `,"correlation_id":`...)
	b = appendJSONNullable(b, e.CorrelationID)
	b = append(b, `,"branch":`...)
	b = appendJSONNullable(b, e.Branch)
	b = append(b, `,"base_commit":`...)
	b = appendJSONNullable(b, e.BaseCommit)
	b = append(b, `,"status":`...)
	b = appendJSONNullable(b, e.Status)
	b = append(b, `,"artifact_ids":[`...)
	for i, id := range e.ArtifactIDs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonstr.Append(b, id, false)
	}
	b = append(b, `],"body":`...)
	b = jsonstr.Append(b, e.Body, false)
	b = append(b, `,"created_at":`...)
	b = jsonstr.Append(b, e.CreatedAt, false)
	b = append(b, `,"metadata":`...)
	b = append(b, metadataObject(e.Metadata)...)
	if e.BodyTruncated {
		b = append(b, `,"body_truncated":true,"body_length":`...)
		b = strconv.AppendInt(b, int64(e.BodyLength), 10)
	}
	return append(b, '}'), nil
}

// jsonSizeHint bounds MarshalJSON's output when no string needs
// escaping: the keys, quotes and punctuation with the optional
// body_truncated pair and three numbers of up to 20 characters (360),
// every string, and the artifact ids with their quotes and commas. One allocation then holds
// the event, where a fixed 320 plus the body and metadata had to grow
// once for most events (their ids, HLC and times alone take ~150 bytes).
func (e Event) jsonSizeHint() int {
	n := 360 + len(e.Body) + len(e.Metadata) + len(e.ID) + len(e.OriginReplica) + len(e.HLC) + len(e.Type) +
		len(e.Stream) + len(e.Room) + len(e.Topic) + len(e.FromAgent) + len(e.ToAgent) + len(e.CorrelationID) +
		len(e.Branch) + len(e.BaseCommit) + len(e.Status) + len(e.CreatedAt)
	for _, id := range e.ArtifactIDs {
		n += len(id) + 3
	}
	return n
}

// eventWire is the tolerant decoding shape of an event dict: nulls and
// absent keys become "", metadata stays raw until validation.
type eventWire struct {
	ID            *string         `json:"id"`
	Seq           json.Number     `json:"seq"`
	OriginReplica *string         `json:"origin_replica"`
	OriginSeq     json.Number     `json:"origin_seq"`
	HLC           *string         `json:"hlc"`
	Type          *string         `json:"type"`
	Stream        *string         `json:"stream"`
	Room          *string         `json:"room"`
	Topic         *string         `json:"topic"`
	FromAgent     *string         `json:"from_agent"`
	ToAgent       *string         `json:"to_agent"`
	CorrelationID *string         `json:"correlation_id"`
	Branch        *string         `json:"branch"`
	BaseCommit    *string         `json:"base_commit"`
	Status        *string         `json:"status"`
	ArtifactIDs   []string        `json:"artifact_ids"`
	Body          *string         `json:"body"`
	CreatedAt     *string         `json:"created_at"`
	Metadata      json.RawMessage `json:"metadata"`
}

// UnmarshalJSON accepts an event dict as the Python hub or lsnode serves
// it. It checks only JSON types; ApplyBatch validates the content.
func (e *Event) UnmarshalJSON(data []byte) error {
	var w eventWire
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("decode event: %w", err)
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	num := func(n json.Number, name string) (int64, error) {
		if n == "" {
			return 0, nil
		}
		v, err := n.Int64()
		if err != nil {
			return 0, fmt.Errorf("decode event: %s %q is not an integer", name, n)
		}
		return v, nil
	}
	seq, err := num(w.Seq, "seq")
	if err != nil {
		return err
	}
	originSeq, err := num(w.OriginSeq, "origin_seq")
	if err != nil {
		return err
	}
	meta := w.Metadata
	if len(meta) == 0 || bytes.Equal(meta, []byte("null")) {
		meta = nil
	}
	*e = Event{
		ID: str(w.ID), Seq: seq, OriginReplica: str(w.OriginReplica), OriginSeq: originSeq,
		HLC: str(w.HLC), Type: str(w.Type), Stream: str(w.Stream), Room: str(w.Room),
		Topic: str(w.Topic), FromAgent: str(w.FromAgent), ToAgent: str(w.ToAgent),
		CorrelationID: str(w.CorrelationID), Branch: str(w.Branch), BaseCommit: str(w.BaseCommit),
		Status: str(w.Status), ArtifactIDs: w.ArtifactIDs, Body: str(w.Body),
		CreatedAt: str(w.CreatedAt), Metadata: meta,
	}
	return nil
}

// MarshalJSON renders the artifact "get" record of docs/compatibility.md#event-and-artifact-records.
func (a Artifact) MarshalJSON() ([]byte, error) {
	return marshalOrdered([]kv{
		{"id", jsonString(a.ID)}, {"kind", jsonString(a.Kind)}, {"sha256", jsonString(a.SHA256)},
		{"size_bytes", []byte(strconv.FormatInt(a.SizeBytes, 10))}, {"content", jsonString(a.Content)},
		{"created_by", jsonString(a.CreatedBy)}, {"created_at", jsonString(a.CreatedAt)},
		{"origin_replica", jsonNullable(a.OriginReplica)}, {"metadata", metadataObject(a.Metadata)},
	}), nil
}

// UnmarshalJSON accepts an artifact "get" record.
func (a *Artifact) UnmarshalJSON(data []byte) error {
	var w struct {
		ID            *string         `json:"id"`
		Kind          *string         `json:"kind"`
		SHA256        *string         `json:"sha256"`
		SizeBytes     json.Number     `json:"size_bytes"`
		Content       *string         `json:"content"`
		CreatedBy     *string         `json:"created_by"`
		CreatedAt     *string         `json:"created_at"`
		OriginReplica *string         `json:"origin_replica"`
		Metadata      json.RawMessage `json:"metadata"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("decode artifact: %w", err)
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	size, _ := w.SizeBytes.Int64() // recomputed from content on apply
	meta := w.Metadata
	if len(meta) == 0 || bytes.Equal(meta, []byte("null")) {
		meta = nil
	}
	*a = Artifact{ID: str(w.ID), Kind: str(w.Kind), SHA256: str(w.SHA256), SizeBytes: size,
		Content: str(w.Content), CreatedBy: str(w.CreatedBy), CreatedAt: str(w.CreatedAt),
		OriginReplica: str(w.OriginReplica), Metadata: meta}
	return nil
}

// PutRecord is the artifact record returned by a put: no content, and
// patch warnings only when there are some.
func (a Artifact) PutRecord() json.Marshaler { return putRecord(a) }

type putRecord Artifact

func (p putRecord) MarshalJSON() ([]byte, error) {
	fields := []kv{
		{"id", jsonString(p.ID)}, {"kind", jsonString(p.Kind)}, {"sha256", jsonString(p.SHA256)},
		{"size_bytes", []byte(strconv.FormatInt(p.SizeBytes, 10))},
		{"created_by", jsonString(p.CreatedBy)}, {"created_at", jsonString(p.CreatedAt)},
		{"origin_replica", jsonNullable(p.OriginReplica)},
	}
	if len(p.Warnings) > 0 {
		w, err := marshalNoEscape(p.Warnings)
		if err != nil {
			return nil, err
		}
		fields = append(fields, kv{"warnings", w})
	}
	return marshalOrdered(fields), nil
}

type kv struct {
	k string
	v []byte
}

func marshalOrdered(fields []kv) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(f.k))
		b.WriteByte(':')
		b.Write(f.v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonString is s as encoding/json (HTML left unescaped) writes it.
func jsonString(s string) []byte { return jsonstr.Append(nil, s, false) }

// plainJSONString reports whether s is printable ASCII without a quote
// or backslash: the text every JSON encoder writes between two quotes
// as it stands.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			return false
		}
	}
	return true
}

func appendJSONNullable(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return jsonstr.Append(dst, s, false)
}

func jsonNullable(s string) []byte {
	if s == "" {
		return []byte("null")
	}
	return jsonString(s)
}

// metadataObject embeds stored metadata; unparsable text reads as {} as
// in the Python hub.
func metadataObject(raw json.RawMessage) []byte {
	if len(raw) == 0 || !json.Valid(raw) || bytes.TrimSpace(raw)[0] != '{' {
		return []byte("{}")
	}
	return raw
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
