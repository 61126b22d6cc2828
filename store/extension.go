package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// ExtensionKey is the metadata key under which lsnode carries what it adds
// to an op (causal context, idempotency key), so the additions survive a
// relay through a Python hub, which keeps only its own columns and
// metadata (docs/architecture.md#extensions-ride-in-metadata). Clients may not use it.
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
// lsnode's extension. A value under ExtensionKey that is not an extension
// (a Python hub's client may send any) is left out of both and reads as
// no extension, wherever the event was written: the event is stored and
// indexed as any other, and every replica reads it the same way.
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
		return obj, extension{}, nil
	}
	return obj, ext, nil
}

// joinMetadata renders client metadata plus the extension as canonical
// (Python json.dumps sort_keys) text.
func joinMetadata(obj map[string]any, ext extension) (json.RawMessage, error) {
	enc, err := encodeClientMeta(obj)
	if err != nil {
		return nil, err
	}
	return enc.join(ext)
}

func decodeNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// clientMeta is a client's metadata encoded as canonical text ahead of the
// writer, split where ExtensionKey sorts among its keys, so the writer
// only has to put the extension in between (join). before and after are
// member lists without braces; either may be empty.
type clientMeta struct {
	before, after []byte
}

// encodeClientMeta encodes obj, which must not hold ExtensionKey. Python's
// sort_keys orders keys by code point, which is the byte order of their
// UTF-8 text.
func encodeClientMeta(obj map[string]any) (clientMeta, error) {
	if len(obj) == 0 {
		return clientMeta{}, nil
	}
	lo, hi := map[string]any{}, map[string]any{}
	for k, v := range obj {
		if k < ExtensionKey {
			lo[k] = v
		} else {
			hi[k] = v
		}
	}
	before, err := pyjson.Dumps(lo)
	if err != nil {
		return clientMeta{}, fmt.Errorf("encode metadata: %w", err)
	}
	after, err := pyjson.Dumps(hi)
	if err != nil {
		return clientMeta{}, fmt.Errorf("encode metadata: %w", err)
	}
	return clientMeta{before: before[1 : len(before)-1], after: after[1 : len(after)-1]}, nil
}

// join renders the metadata with ext in canonical text.
func (m clientMeta) join(ext extension) (json.RawMessage, error) {
	out := make([]byte, 0, len(m.before)+len(m.after)+96)
	out = append(out, '{')
	sep := func() {
		if len(out) > 1 {
			out = append(out, ", "...)
		}
	}
	if len(m.before) > 0 {
		out = append(out, m.before...)
	}
	if !ext.empty() {
		x, err := encodeExtension(ext)
		if err != nil {
			return nil, err
		}
		sep()
		out = append(out, `"`+ExtensionKey+`": `...)
		out = append(out, x...)
	}
	if len(m.after) > 0 {
		sep()
		out = append(out, m.after...)
	}
	return append(out, '}'), nil
}

// encodeExtension renders ext as canonical text (json.dumps sort_keys),
// by hand: it runs on the writer goroutine for every append.
func encodeExtension(ext extension) ([]byte, error) {
	out := make([]byte, 0, 64)
	out = append(out, '{')
	if ext.Ctx != nil {
		out = append(out, `"ctx": {`...)
		origins := make([]string, 0, len(ext.Ctx))
		for origin := range ext.Ctx {
			origins = append(origins, origin)
		}
		slices.Sort(origins)
		for i, origin := range origins {
			if i > 0 {
				out = append(out, ", "...)
			}
			var err error
			if out, err = appendPyString(out, origin); err != nil {
				return nil, err
			}
			out = append(out, ": "...)
			out = strconv.AppendInt(out, ext.Ctx[origin], 10)
		}
		out = append(out, '}')
	}
	if ext.Idem != "" {
		if ext.Ctx != nil {
			out = append(out, ", "...)
		}
		out = append(out, `"idem": `...)
		var err error
		if out, err = appendPyString(out, ext.Idem); err != nil {
			return nil, err
		}
	}
	return append(out, '}'), nil
}

// appendPyString appends s as Python's json.dumps writes it: as it stands
// when it is plain (replica ids always are), else through pyjson.
func appendPyString(out []byte, s string) ([]byte, error) {
	if plainJSONString(s) {
		out = append(out, '"')
		out = append(out, s...)
		return append(out, '"'), nil
	}
	q, err := pyjson.Dumps(s)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return append(out, q...), nil
}
