package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// Metadata validates event or artifact metadata and returns its canonical
// text (pyjson.Dumps: sorted keys, non-ASCII kept). nil and a JSON null
// are "{}", and so are a nil map and empty JSON text (an absent argument).
// v may be a decoded object (map[string]any, pyjson.Object, any
// string-keyed map) or JSON text as json.RawMessage or []byte, which must
// hold an object. The canonical text must be at most MaxMetadataBytes.
func Metadata(v any) ([]byte, error) {
	var (
		text []byte
		err  error
	)
	switch x := v.(type) {
	case nil:
		return []byte("{}"), nil
	case json.RawMessage:
		text, err = metadataText(x)
	case []byte:
		text, err = metadataText(x)
	case pyjson.Object:
		text, err = dumpsMetadata(x)
	default:
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
			return nil, invalidf("metadata must be an object")
		}
		if rv.IsNil() {
			return []byte("{}"), nil
		}
		text, err = dumpsMetadata(v)
	}
	if err != nil {
		return nil, err
	}
	if len(text) > MaxMetadataBytes {
		return nil, invalidf("metadata exceeds maximum size of %d bytes", MaxMetadataBytes)
	}
	return text, nil
}

func dumpsMetadata(v any) ([]byte, error) {
	text, err := pyjson.Dumps(v)
	if err != nil {
		return nil, invalidf("metadata is not JSON-serializable: %v", err)
	}
	return text, nil
}

// metadataText canonicalises JSON text that must hold an object (or null).
func metadataText(raw []byte) ([]byte, error) {
	if trimmed := string(bytes.TrimSpace(raw)); trimmed == "" || trimmed == "null" {
		return []byte("{}"), nil
	}
	text, err := pyjson.Canonical(raw)
	switch {
	case err == nil:
		return text, nil
	case errors.Is(err, pyjson.ErrNotObject), errors.Is(err, pyjson.ErrSyntax):
		return nil, invalidf("metadata must be an object")
	default:
		return nil, invalidf("metadata is not JSON-serializable: %v", err)
	}
}

// ArtifactIDs validates a list of artifact ids: nil is an empty list;
// otherwise a list of non-empty strings, returned without duplicates in
// first-seen order.
func ArtifactIDs(v any) ([]string, error) {
	var ids []string
	switch x := v.(type) {
	case nil:
	case []string:
		ids = x
	case []any:
		ids = make([]string, len(x))
		for i, item := range x {
			s, ok := item.(string)
			if !ok {
				return nil, errArtifactIDs()
			}
			ids[i] = s
		}
	default:
		return nil, errArtifactIDs()
	}
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id == "" {
			return nil, errArtifactIDs()
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

func errArtifactIDs() error {
	return invalidf("artifact_ids must be a list of artifact id strings")
}
