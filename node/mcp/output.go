package mcp

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// The output schemas of the tools: what a result's structuredContent
// (the same object as its text) holds. A refusal is one of each tool's
// results ({"error": ...} from readers, {"success": false, "error": ...}
// from writers), so every schema admits it beside the answer; the records
// keep additional properties open, since later versions may add keys.

func stringSchema(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Description: desc}
}

func nullableString(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Types: []string{"string", "null"}, Description: desc}
}

func integerSchema(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "integer", Description: desc}
}

func stringList(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: desc}
}

// record is an object schema with props in order, all of them required
// unless listed in optional.
func record(desc string, props []toolProp, optional ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Description: desc, Properties: map[string]*jsonschema.Schema{}}
	for _, p := range props {
		s.Properties[p.name] = p.schema
		s.PropertyOrder = append(s.PropertyOrder, p.name)
		if !slices.Contains(optional, p.name) {
			s.Required = append(s.Required, p.name)
		}
	}
	return s
}

func eventSchema() *jsonschema.Schema {
	return record("One stored event, as every node serves it.", []toolProp{
		prop("id", stringSchema("Event id.")),
		prop("seq", integerSchema("This node's arrival order; differs between nodes.")),
		prop("origin_replica", stringSchema("Replica that first stored the event.")),
		prop("origin_seq", integerSchema("The event's number on its origin replica.")),
		prop("hlc", stringSchema("Hybrid logical clock stamp of the write.")),
		prop("type", stringSchema("Event type.")),
		prop("stream", stringSchema("Stream.")),
		prop("room", stringSchema("Room.")),
		prop("topic", nullableString("Topic.")),
		prop("from_agent", stringSchema("Writer.")),
		prop("to_agent", nullableString("Addressee; '*' for a broadcast.")),
		prop("correlation_id", nullableString("Correlation id.")),
		prop("branch", nullableString("Git branch.")),
		prop("base_commit", nullableString("Git commit.")),
		prop("status", nullableString("Status.")),
		prop("artifact_ids", stringList("Attached artifacts.")),
		prop("body", stringSchema("Body; cut to 200 characters with preview.")),
		prop("created_at", stringSchema("UTC creation time, YYYY-MM-DDTHH:MM:SSZ.")),
		prop("metadata", &jsonschema.Schema{Type: "object", Description: "Structured fields, as stored."}),
		prop("body_truncated", &jsonschema.Schema{Type: "boolean", Description: "Set when preview cut the body."}),
		prop("body_length", integerSchema("The whole body's length in characters, when preview cut it.")),
	}, "body_truncated", "body_length")
}

// artifactProps are the members of an artifact record before its
// content: a put answers them (with warnings), a get adds the content and
// metadata.
func artifactProps() []toolProp {
	return []toolProp{
		prop("id", stringSchema("Artifact id.")),
		prop("kind", enumProp("kind", "Artifact kind.", artifactKinds...).schema),
		prop("sha256", stringSchema("SHA-256 of the content, hex.")),
		prop("size_bytes", integerSchema("Size of the content in UTF-8 bytes.")),
	}
}

func artifactPutSchema() *jsonschema.Schema {
	props := append(artifactProps(),
		prop("created_by", stringSchema("Writer.")),
		prop("created_at", stringSchema("UTC creation time.")),
		prop("origin_replica", nullableString("Replica that first stored it.")),
		prop("warnings", stringList("Why git apply would reject the patch, when it would.")),
	)
	return record("The stored artifact, without its content.", props, "warnings")
}

func artifactGetSchema() *jsonschema.Schema {
	props := append(artifactProps(),
		prop("content", stringSchema("Exact content.")),
		prop("created_by", stringSchema("Writer.")),
		prop("created_at", stringSchema("UTC creation time.")),
		prop("origin_replica", nullableString("Replica that first stored it.")),
		prop("metadata", &jsonschema.Schema{Type: "object"}),
	)
	return record("The artifact with its content.", props)
}

func errorProp() toolProp {
	return prop("error", stringSchema("Why the call was refused, in the Python hub's words (isError is set)."))
}

// writeOutput is a writer's envelope: {"success": true, members...,
// "duplicate"?, "warnings"?} or {"success": false, "error": ...}.
func writeOutput(members ...toolProp) *jsonschema.Schema {
	props := append([]toolProp{prop("success", &jsonschema.Schema{Type: "boolean"})}, members...)
	props = append(props,
		prop("duplicate", &jsonschema.Schema{Const: ptr[any](true), Description: "Set when idempotency_key matched an earlier write: the original result."}),
		prop("warnings", stringList("Set when the writer's name is also writing through another replica.")),
		errorProp(),
	)
	s := record("", props)
	s.Required = []string{"success"}
	done := &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"success": {Const: ptr[any](true)}}, Required: []string{"success"}}
	for _, m := range members {
		done.Required = append(done.Required, m.name)
	}
	refused := &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"success": {Const: ptr[any](false)}}, Required: []string{"success", "error"}}
	s.OneOf = []*jsonschema.Schema{done, refused}
	return s
}

// readOutput is a reader's answer: its members (those not in optional
// required) or {"error": ...}.
func readOutput(desc string, members []toolProp, optional ...string) *jsonschema.Schema {
	s := record(desc, append(members, errorProp()))
	answer := &jsonschema.Schema{}
	for _, m := range members {
		if !slices.Contains(optional, m.name) {
			answer.Required = append(answer.Required, m.name)
		}
	}
	s.Required = nil
	s.AnyOf = []*jsonschema.Schema{answer, {Required: []string{"error"}}}
	return s
}

// pageOutput is a list, wait or search answer.
func pageOutput(wait bool) *jsonschema.Schema {
	var members []toolProp
	if wait {
		members = append(members, prop("timed_out", &jsonschema.Schema{Type: "boolean", Description: "True when nothing matched in time: events is then empty."}))
	}
	members = append(members,
		prop("events", &jsonschema.Schema{Type: "array", Items: eventSchema()}),
		prop("count", integerSchema("Number of events.")),
		prop("cursor", stringSchema("Portable resume token; absent after a timeout.")),
		prop("note", stringSchema("Set when from_agent was passed without writer: it does not filter.")),
	)
	return readOutput("", members, "cursor", "note")
}

// claimProps are the members the coordination views add to an ask about
// its claim.
func claimProps() []toolProp {
	return []toolProp{
		prop("claimed_by", nullableString("The agent that claimed the ask; null if unclaimed.")),
		prop("claimed_from", nullableString("The replica the earliest claim came through; null if unclaimed.")),
		prop("claim_conflict", &jsonschema.Schema{Type: "boolean", Description: "True when claims came through two or more replicas."}),
	}
}

// askSchema is an ask of a coordination view: the event with the view's
// members after its own, all of them required, and the thread's status.
func askSchema(members []toolProp) *jsonschema.Schema {
	ask := eventSchema()
	for _, p := range members {
		ask.Properties[p.name] = p.schema
		ask.PropertyOrder = append(ask.PropertyOrder, p.name)
		ask.Required = append(ask.Required, p.name)
	}
	ask.Properties["status"] = nullableString("The thread's latest status: the addressee's latest progress, else the ask's.")
	return ask
}

// owedOutput is an owed answer: the events, each an ask with its claim,
// and their count.
func owedOutput() *jsonschema.Schema {
	return readOutput("", []toolProp{
		prop("events", &jsonschema.Schema{Type: "array", Items: askSchema(claimProps())}),
		prop("count", integerSchema("Number of events.")),
	})
}

// awaitingOutput is an awaiting answer: asks, each an event with the
// view's members, and their count.
func awaitingOutput() *jsonschema.Schema {
	view := append([]toolProp{
		prop("age_s", integerSchema("Seconds since the ask was written, by its stamp and this node's clock.")),
		prop("addressee", stringSchema("The agent that owes the reply (to_agent).")),
		prop("last_heard", nullableString("The addressee's newest HLC stamp anywhere in the mesh; null if it never wrote.")),
	}, claimProps()...)
	return readOutput("", []toolProp{
		prop("asks", &jsonschema.Schema{Type: "array", Items: askSchema(view)}),
		prop("count", integerSchema("Number of asks.")),
	})
}

func artifactGetOutput() *jsonschema.Schema {
	return readOutput("", []toolProp{prop("artifact", artifactGetSchema())})
}

// meshPeersOutput is the roster, whose members are those of GET
// /sync/peers, or a refusal.
func meshPeersOutput() *jsonschema.Schema {
	return readOutput("The GET /sync/peers payload: this node (self), its peers and the origins it holds.", nil)
}
