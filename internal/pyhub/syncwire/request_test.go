package syncwire

import (
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyhttp"
)

// The texts are the hub's 400 texts, the checks in its order: int() of
// after and limit, then origin, after_seq, limit.
func TestParseOpsRequest(t *testing.T) {
	errs := map[string]string{
		"":                                 "origin must be a non-empty string",
		"origin=%20&after=x":               "invalid literal for int() with base 10: 'x'",
		"origin=%20&limit=x":               "invalid literal for int() with base 10: 'x'",
		"origin=%20&after=-1&limit=0":      "origin must be a non-empty string",
		"origin=a%01b":                     "origin contains control characters",
		"origin=rep_a&after=-1&limit=0":    "after_seq must be a non-negative integer",
		"origin=rep_a&limit=0":             "limit must be a positive integer",
		"origin=rep_a&after=1.5":           "invalid literal for int() with base 10: '1.5'",
		"origin=rep_a&after=0&limit=-0x10": "invalid literal for int() with base 10: '-0x10'",
	}
	for raw, want := range errs {
		if _, err := ParseOpsRequest(pyhttp.ParseQSL(raw)); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %q", raw, err, want)
		}
	}
	good := map[string]OpsRequest{
		"origin=rep_a":                           {Sent: "rep_a", Origin: "rep_a", Limit: MaxOpsLimit},
		"origin=+rep_a+&after=+1_0+&limit=7":     {Sent: " rep_a ", Origin: "rep_a", After: 10, Limit: 7},
		"origin=rep_a&limit=1000&after=":         {Sent: "rep_a", Origin: "rep_a", Limit: MaxOpsLimit},
		"origin=rep_a&limit=%EF%BC%93&limit=%31": {Sent: "rep_a", Origin: "rep_a", Limit: 1},
	}
	for raw, want := range good {
		if got, err := ParseOpsRequest(pyhttp.ParseQSL(raw)); err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", raw, got, err, want)
		}
	}
}

func TestParseArtifactRequest(t *testing.T) {
	if got, err := ParseArtifactRequest(pyhttp.ParseQSL("id=+art_1%20")); err != nil || got != (ArtifactRequest{Sent: " art_1 ", ID: "art_1"}) {
		t.Errorf("got %+v, %v", got, err)
	}
	for _, raw := range []string{"", "id=", "id=%20"} {
		if _, err := ParseArtifactRequest(pyhttp.ParseQSL(raw)); err == nil || err.Error() != "artifact_id must be a non-empty string" {
			t.Errorf("%q: error %v", raw, err)
		}
	}
}

// TestURL: the puller's requests are the Python transport's.
func TestURL(t *testing.T) {
	if got, want := URL("https://hub.example:8765", OpsPath, OpsParams("rep_a", 12, 500)...),
		"https://hub.example:8765/sync/ops?origin=rep_a&after=12&limit=500"; got != want {
		t.Errorf("ops URL %q, want %q", got, want)
	}
	if got, want := URL("http://h", ArtifactPath, ArtifactParams("art 1/é")...), "http://h/sync/artifact?id=art+1%2F%C3%A9"; got != want {
		t.Errorf("artifact URL %q, want %q", got, want)
	}
	if got := URL("http://h", VersionVectorPath); got != "http://h/sync/version_vector" {
		t.Errorf("version vector URL %q", got)
	}
}
