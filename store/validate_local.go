package store

import (
	"encoding/json"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// wrapRule turns a rules error into the store's ValidationError, keeping
// the Python text.
func wrapRule(err error) error {
	if err == nil {
		return nil
	}
	return &ValidationError{Msg: err.Error(), Kind: ErrInvalid}
}

// rawOrNil keeps an absent metadata argument absent (a nil RawMessage in
// an interface is not nil).
func rawOrNil(m json.RawMessage) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// clientMetadata validates client metadata and refuses the reserved key.
func clientMetadata(m json.RawMessage) (map[string]any, error) {
	canon, err := rules.Metadata(rawOrNil(m))
	if err != nil {
		return nil, wrapRule(err)
	}
	obj := map[string]any{}
	if string(canon) == "{}" {
		return obj, nil // most events carry none: no decoder for them
	}
	if err := decodeNumbers(canon, &obj); err != nil {
		return nil, invalidf("metadata must be an object")
	}
	if _, ok := obj[ExtensionKey]; ok {
		return nil, invalidf("metadata key %s is reserved for lsnode", rules.Repr(ExtensionKey))
	}
	return obj, nil
}

// draft is a validated local event before the writer stamps it.
type draft struct {
	ev   Event
	meta map[string]any
	idem string
	// Minted and encoded by ready, outside the writer: its goroutine is the
	// store's bottleneck under concurrent appends.
	id      string
	encoded clientMeta
}

// ready mints the draft's event id and encodes its metadata.
func (d *draft) ready(now time.Time) error {
	enc, err := encodeClientMeta(d.meta)
	if err != nil {
		return err
	}
	d.id, d.encoded = newID("evt", now), enc
	return nil
}

// validateAppend applies the Python hub's rules in the Python order.
func validateAppend(in AppendInput) (draft, error) {
	var d draft
	var err error
	steps := []func() error{
		func() error { d.ev.Type, err = rules.EventType(in.Type); return err },
		func() error { d.ev.Stream, err = rules.Routing(in.Stream, "stream", true); return err },
		func() error { d.ev.Room, err = rules.Routing(in.Room, "room", true); return err },
		func() error { d.ev.Topic, err = rules.Routing(in.Topic, "topic", false); return err },
		func() error { d.ev.FromAgent, err = rules.Routing(in.FromAgent, "from_agent", true); return err },
		func() error { d.ev.ToAgent, err = rules.Routing(in.ToAgent, "to_agent", false); return err },
		func() error {
			d.ev.CorrelationID, err = rules.Routing(in.CorrelationID, "correlation_id", false)
			return err
		},
		func() error { d.ev.Branch, err = rules.Routing(in.Branch, "branch", false); return err },
		func() error { d.ev.BaseCommit, err = rules.Routing(in.BaseCommit, "base_commit", false); return err },
		func() error { d.ev.Status, err = rules.Status(in.Status); return err },
		func() error { d.ev.Body, err = rules.Body(in.Body, rules.MaxBodyBytes, "body"); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return d, wrapRule(err)
		}
	}
	if d.meta, err = clientMetadata(in.Metadata); err != nil {
		return d, err
	}
	ids, err := rules.ArtifactIDs(stringsOrNil(in.ArtifactIDs))
	if err != nil {
		return d, wrapRule(err)
	}
	d.ev.ArtifactIDs = ids
	if d.idem, err = rules.Routing(in.IdempotencyKey, "idempotency_key", false); err != nil {
		return d, wrapRule(err)
	}
	return d, nil
}

func stringsOrNil(ids []string) any {
	if ids == nil {
		return nil
	}
	return ids
}

// validateArtifact applies the Python put_artifact rules in order.
func validateArtifact(in ArtifactInput) (Artifact, map[string]any, string, error) {
	var a Artifact
	var err error
	if a.Kind, err = rules.ArtifactKind(in.Kind); err != nil {
		return a, nil, "", wrapRule(err)
	}
	if a.CreatedBy, err = rules.Routing(in.CreatedBy, "created_by", true); err != nil {
		return a, nil, "", wrapRule(err)
	}
	if a.Content, err = rules.Content(in.Content); err != nil {
		return a, nil, "", wrapRule(err)
	}
	meta, err := clientMetadata(in.Metadata)
	if err != nil {
		return a, nil, "", err
	}
	idem, err := rules.Routing(in.IdempotencyKey, "idempotency_key", false)
	if err != nil {
		return a, nil, "", wrapRule(err)
	}
	return a, meta, idem, nil
}
