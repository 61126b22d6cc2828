package syncwire

import (
	"encoding/json"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// ArtifactAnswer is the answer of GET /sync/artifact: {"artifact":
// record}, record being the artifact's get record.
func ArtifactAnswer(record any) pyjson.Object {
	return pyjson.Object{{Key: "artifact", Value: record}}
}

// ArtifactNotFound is the body of the 404 for an artifact not held,
// which names the id as the request sent it (ArtifactRequest.Sent).
func ArtifactNotFound(sent string) pyjson.Object {
	return ErrorAnswer(rules.ArtifactNotFound(sent))
}

// DecodeArtifact reads a /sync/artifact answer and returns the record's
// JSON text: nil when the answer has none or null. Errors are
// DecodeAnswer's.
func DecodeArtifact(body []byte) (json.RawMessage, error) {
	var w struct {
		Artifact json.RawMessage `json:"artifact"`
	}
	if err := DecodeAnswer(body, &w); err != nil {
		return nil, err
	}
	if string(w.Artifact) == "null" {
		return nil, nil
	}
	return w.Artifact, nil
}
