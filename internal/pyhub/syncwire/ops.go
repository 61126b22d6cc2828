package syncwire

import (
	"encoding/json"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// Ops is the answer of GET /sync/ops: one page of an origin's ops, as
// event dicts in origin order. E is how events are held: pyjson values to
// answer, json.RawMessage as decoded.
type Ops[E any] struct {
	// Origin is the origin as the request sent it (OpsRequest.Sent).
	Origin string
	Events []E
}

// JSON is the answer in the hub's key order: {"origin", "events",
// "count"}.
func (o Ops[E]) JSON() pyjson.Object {
	events := o.Events
	if events == nil {
		events = []E{}
	}
	return pyjson.Object{
		{Key: "origin", Value: o.Origin},
		{Key: "events", Value: events},
		{Key: "count", Value: len(o.Events)},
	}
}

// DecodeOps reads a /sync/ops answer, each event as its JSON text. The
// count must be an integer, as the page's other members must have their
// types; it is not otherwise read. Errors are DecodeAnswer's.
func DecodeOps(body []byte) (Ops[json.RawMessage], error) {
	var w struct {
		Origin string            `json:"origin"`
		Events []json.RawMessage `json:"events"`
		Count  int               `json:"count"`
	}
	if err := DecodeAnswer(body, &w); err != nil {
		return Ops[json.RawMessage]{}, err
	}
	return Ops[json.RawMessage]{Origin: w.Origin, Events: w.Events}, nil
}
