package rules

// The hub's texts for an id that names nothing held. Each shows the id as
// repr() does. They are texts, not errors: the caller says whether the
// id is invalid input (an append's artifact_ids) or a lookup that found
// nothing, and wraps the text in its own error.

// EventNotFound is the text of an ack of an event not held.
func EventNotFound(id string) string { return "event " + Repr(id) + " not found" }

// ArtifactNotFound is the text of a read of an artifact not held.
func ArtifactNotFound(id string) string { return "artifact " + Repr(id) + " not found" }

// UnknownArtifact is the text of an append whose artifact_ids names an
// artifact not held.
func UnknownArtifact(id string) string { return "artifact_ids references unknown artifact " + Repr(id) }

// CursorNotFound is the text of a list whose cursor field
// (since_event_id, before_event_id) names an event not held.
func CursorNotFound(field, id string) string { return field + " " + Repr(id) + " not found" }
