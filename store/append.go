package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// Append stores one local event. A retry with the same (from_agent,
// idempotency_key) returns the original event with Duplicate set.
//
// Every local write (Append, and Ack and TaskCreate through it,
// PutArtifact, PatchSubmit) that passes validation is timed once in
// lsnode_store_append_duration_seconds, its error included.
func (s *Store) Append(ctx context.Context, in AppendInput) (Written, error) {
	start := s.wall.Now()
	d, err := validateAppend(in)
	if err == nil {
		err = d.ready(start)
	}
	if err == nil {
		err = s.localWritable() // recovery.go
	}
	if err != nil {
		return Written{}, err
	}
	var out Written
	err = s.write(ctx, func(w *writeTx) error {
		var err error
		out, err = s.appendInTx(w, d)
		return err
	})
	s.metrics.observeAppend(start, s.wall.Now(), err)
	if err != nil {
		return Written{}, err
	}
	out.SharedName = s.sharedName(out.Event.FromAgent)
	return out, nil
}

// appendInTx stores a validated draft inside the writer's transaction.
func (s *Store) appendInTx(w *writeTx, d draft) (Written, error) {
	if d.id == "" {
		return Written{}, errors.New("append: the draft was not made ready")
	}
	if d.idem != "" {
		if prev, ok, err := s.idempotentEvent(w, d.ev.FromAgent, d.idem); err != nil || ok {
			return Written{Event: prev, Duplicate: ok}, err
		}
	}
	for _, id := range d.ev.ArtifactIDs {
		ok, err := artifactExists(w.ctx, w.tx, id)
		if err != nil {
			return Written{}, err
		}
		if !ok {
			return Written{}, &ValidationError{Msg: rules.UnknownArtifact(id), Kind: ErrInvalid}
		}
	}
	ev := d.ev
	ext := extension{Idem: d.idem}
	if ev.Status != "" {
		ctxVV, err := threadContext(w, ev.CorrelationID)
		if err != nil {
			return Written{}, err
		}
		ext.Ctx = ctxVV
	}
	meta, err := d.encoded.join(ext)
	if err != nil {
		return Written{}, err
	}
	now := s.wall.Now()
	ev.Metadata = meta
	ev.ID = d.id
	ev.CreatedAt = createdAt(now)
	ev.OriginReplica = s.replica
	prev := w.top(s.replica)
	ev.OriginSeq = prev + 1
	ev.HLC = s.clock.Tick().String()
	if err := w.storeEvent(&ev, partsFrom(d.meta, ext)); err != nil {
		return Written{}, err
	}
	w.advance(Op{Event: ev, PrevSeq: prev})
	return Written{Event: ev}, nil
}

// PutArtifact stores an exact payload.
func (s *Store) PutArtifact(ctx context.Context, in ArtifactInput) (Written, error) {
	start := s.wall.Now()
	a, meta, idem, err := validateArtifact(in)
	if err == nil {
		err = s.localWritable()
	}
	if err != nil {
		return Written{}, err
	}
	var out Written
	err = s.write(ctx, func(w *writeTx) error {
		var err error
		out, err = s.putArtifactInTx(w, a, meta, idem)
		return err
	})
	s.metrics.observeAppend(start, s.wall.Now(), err)
	if err != nil {
		return Written{}, err
	}
	return out, nil
}

func (s *Store) putArtifactInTx(w *writeTx, a Artifact, meta map[string]any, idem string) (Written, error) {
	if idem != "" {
		if prev, ok, err := s.idempotentArtifact(w, a.CreatedBy, idem); err != nil || ok {
			prev.Warnings = PatchWarnings(prev.Kind, prev.Content)
			return Written{Artifact: &prev, Duplicate: ok}, err
		}
	}
	var err error
	if a.Metadata, err = joinMetadata(meta, extension{Idem: idem}); err != nil {
		return Written{}, err
	}
	now := s.wall.Now()
	sum := sha256.Sum256([]byte(a.Content))
	a.ID = newID("art", now)
	a.SHA256 = hex.EncodeToString(sum[:])
	a.SizeBytes = int64(len(a.Content))
	a.CreatedAt = createdAt(now)
	a.OriginReplica = s.replica
	if err := w.storeArtifact(a); err != nil {
		return Written{}, err
	}
	a.Warnings = PatchWarnings(a.Kind, a.Content)
	return Written{Artifact: &a}, nil
}

// PatchSubmit stores a patch artifact and its patch.ready event in one
// transaction: a refused event leaves no orphan artifact behind.
func (s *Store) PatchSubmit(ctx context.Context, in PatchInput) (Written, error) {
	start := s.wall.Now()
	room := in.Room
	if room == "" {
		room = "patches"
	}
	a, meta, _, err := validateArtifact(ArtifactInput{Kind: "patch", Content: in.Content, CreatedBy: in.FromAgent, Metadata: in.Metadata})
	if err != nil {
		return Written{}, err
	}
	d, err := validateAppend(AppendInput{
		Type: "patch.ready", Stream: in.Stream, Room: room, Topic: in.Topic, FromAgent: in.FromAgent,
		ToAgent: in.ToAgent, CorrelationID: in.CorrelationID, Branch: in.Branch, BaseCommit: in.BaseCommit,
		Status: "ready", Body: in.Body, Metadata: in.Metadata, IdempotencyKey: in.IdempotencyKey,
	})
	if err == nil {
		err = d.ready(s.wall.Now())
	}
	if err == nil {
		err = s.localWritable()
	}
	if err != nil {
		return Written{}, err
	}
	var out Written
	err = s.write(ctx, func(w *writeTx) error {
		if d.idem != "" {
			prev, ok, err := s.idempotentEvent(w, d.ev.FromAgent, d.idem)
			if err != nil {
				return err
			}
			if ok {
				art, err := s.patchOf(w, prev)
				out = Written{Event: prev, Artifact: art, Duplicate: true}
				return err
			}
		}
		stored, err := s.putArtifactInTx(w, a, copyMeta(meta), "")
		if err != nil {
			return err
		}
		d.ev.ArtifactIDs = []string{stored.Artifact.ID}
		ev, err := s.appendInTx(w, d)
		if err != nil {
			return err
		}
		out = Written{Event: ev.Event, Artifact: stored.Artifact}
		return nil
	})
	s.metrics.observeAppend(start, s.wall.Now(), err)
	if err != nil {
		return Written{}, err
	}
	out.SharedName = s.sharedName(out.Event.FromAgent)
	return out, nil
}

func (s *Store) patchOf(w *writeTx, ev Event) (*Artifact, error) {
	if len(ev.ArtifactIDs) == 0 {
		return nil, nil
	}
	a, err := getArtifact(w.ctx, w.tx, ev.ArtifactIDs[0])
	if err != nil {
		return nil, err
	}
	a.Warnings = PatchWarnings(a.Kind, a.Content)
	return &a, nil
}

func copyMeta(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// PatchWarnings are the Python hub's advisories for patches that git
// apply would reject; the content is stored verbatim regardless.
func PatchWarnings(kind, content string) []string {
	if kind != "patch" {
		return nil
	}
	var out []string
	if !strings.HasSuffix(content, "\n") {
		out = append(out, "patch content does not end with a trailing newline; git apply will reject the final hunk as corrupt — store the diff byte-exactly including its trailing newline")
	}
	if strings.Contains(content, "\r") {
		out = append(out, "patch content contains carriage returns (CRLF line endings); git apply often rejects CRLF diffs — generate the diff with LF endings")
	}
	return out
}
