package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/lsnode/lsnode/store/pyjson"
)

// ExtensionKey is the metadata key under which lsnode carries what it adds
// to an op (causal context, idempotency key), so the additions survive a
// relay through a Python hub, which keeps only its own columns and
// metadata (DESIGN.md §3). Clients may not use it.
const ExtensionKey = "_lsnode"

// extension is the value stored under ExtensionKey.
type extension struct {
	// Ctx is the writer's version vector restricted to the origins that
	// had events in the event's correlation thread when it was written.
	Ctx map[string]int64 `json:"ctx,omitempty"`
	// Idem is the client's idempotency key.
	Idem string `json:"idem,omitempty"`
}

func (x extension) empty() bool { return x.Ctx == nil && x.Idem == "" }

// splitMetadata parses canonical metadata text into the client's part and
// lsnode's extension.
func splitMetadata(raw json.RawMessage) (map[string]any, extension, error) {
	var ext extension
	obj := map[string]any{}
	if len(raw) == 0 {
		return obj, ext, nil
	}
	if err := decodeNumbers(raw, &obj); err != nil {
		return nil, ext, err
	}
	xraw, ok := obj[ExtensionKey]
	if !ok {
		return obj, ext, nil
	}
	delete(obj, ExtensionKey)
	b, err := json.Marshal(xraw)
	if err != nil {
		return nil, ext, fmt.Errorf("encode %s: %w", ExtensionKey, err)
	}
	if err := json.Unmarshal(b, &ext); err != nil {
		return nil, ext, fmt.Errorf("%s is malformed: %w", ExtensionKey, err)
	}
	return obj, ext, nil
}

// joinMetadata renders client metadata plus the extension as canonical
// (Python json.dumps sort_keys) text.
func joinMetadata(obj map[string]any, ext extension) (json.RawMessage, error) {
	if !ext.empty() {
		x := map[string]any{}
		if ext.Ctx != nil {
			ctx := make(map[string]any, len(ext.Ctx))
			for k, v := range ext.Ctx {
				ctx[k] = json.Number(fmt.Sprint(v))
			}
			x["ctx"] = ctx
		}
		if ext.Idem != "" {
			x["idem"] = ext.Idem
		}
		obj[ExtensionKey] = x
	}
	out, err := pyjson.Dumps(obj)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return out, nil
}

func decodeNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}
