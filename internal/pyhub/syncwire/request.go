package syncwire

import (
	"github.com/lsnode/lsnode/internal/pyhub/pynum"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// OpsRequest is a /sync/ops request: the ops of one origin after an
// origin_seq.
type OpsRequest struct {
	// Sent is the origin parameter as the request sent it; the answer
	// names the origin so.
	Sent string
	// Origin is the origin checked and stripped, to look up.
	Origin string
	After  int64
	// Limit is 1..MaxOpsLimit.
	Limit int
}

// ParseOpsRequest reads a /sync/ops query (pyhttp.ParseQSL) as the hub
// does: int() of after (default 0) and of limit (default MaxOpsLimit),
// then list_ops' checks in its order, origin, after, limit (clamped).
// The error's text is the hub's 400 text.
func ParseOpsRequest(q map[string]string) (OpsRequest, error) {
	after, err := intParam(q, "after", 0)
	if err != nil {
		return OpsRequest{}, err
	}
	limit, err := intParam(q, "limit", MaxOpsLimit)
	if err != nil {
		return OpsRequest{}, err
	}
	req := OpsRequest{Sent: q["origin"], After: after}
	if req.Origin, err = rules.Routing(req.Sent, "origin", true); err != nil {
		return OpsRequest{}, err
	}
	if _, err := rules.AfterSeq(after); err != nil {
		return OpsRequest{}, err
	}
	if req.Limit, err = rules.Limit(limit); err != nil {
		return OpsRequest{}, err
	}
	return req, nil
}

// intParam is int(params.get(key, def)).
func intParam(q map[string]string, key string, def int64) (int64, error) {
	v, ok := q[key]
	if !ok {
		return def, nil
	}
	return pynum.Int64(v)
}

// ArtifactRequest is a /sync/artifact request.
type ArtifactRequest struct {
	// Sent is the id parameter as the request sent it, which the 404
	// names (ArtifactNotFound).
	Sent string
	// ID is the id checked and stripped, to look up.
	ID string
}

// ParseArtifactRequest reads a /sync/artifact query; the error's text is
// the hub's 400 text.
func ParseArtifactRequest(q map[string]string) (ArtifactRequest, error) {
	req := ArtifactRequest{Sent: q["id"]}
	var err error
	if req.ID, err = rules.Routing(req.Sent, "artifact_id", true); err != nil {
		return ArtifactRequest{}, err
	}
	return req, nil
}
