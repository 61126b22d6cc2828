package syncwire

import (
	"strconv"

	"github.com/lsnode/lsnode/internal/pyhub/pyhttp"
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// The paths of the replication routes.
const (
	VersionVectorPath = "/sync/version_vector"
	OpsPath           = "/sync/ops"
	ArtifactPath      = "/sync/artifact"
	PeersPath         = "/sync/peers"
)

// MaxOpsLimit is the most ops one /sync/ops page holds, the default of
// its limit parameter (which is clamped to it) and the Python puller's
// page size.
const MaxOpsLimit = 500

// URL is a request's URL as the hub's transport builds it: the peer's
// base URL (trailing slashes already trimmed), the path, and the
// parameters urlencoded in their order.
func URL(base, path string, params ...pyhttp.Param) string {
	if len(params) == 0 {
		return base + path
	}
	return base + path + "?" + pyhttp.URLEncode(params...)
}

// OpsParams are the parameters of a /sync/ops request, in the Python
// puller's order.
func OpsParams(origin string, after int64, limit int) []pyhttp.Param {
	return []pyhttp.Param{{Key: "origin", Value: origin}, {Key: "after", Value: strconv.FormatInt(after, 10)},
		{Key: "limit", Value: strconv.Itoa(limit)}}
}

// ArtifactParams are the parameters of a /sync/artifact request.
func ArtifactParams(id string) []pyhttp.Param {
	return []pyhttp.Param{{Key: "id", Value: id}}
}

// ErrorAnswer is the body of the hub's refusals, {"error": msg}, on the
// /sync/* routes and its other JSON routes.
func ErrorAnswer(msg string) pyjson.Object {
	return pyjson.Object{{Key: "error", Value: msg}}
}
