package syncwire

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

var at = time.Date(2026, 7, 2, 21, 14, 9, 0, time.UTC)

// compact is the answer as a route writes it.
func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := pyjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The expected bodies are the hub's: json.dumps of its dicts, in their
// key order.
func TestAnswers(t *testing.T) {
	self := Profile{Roles: []string{"replica", "agents"}, Hardware: "linux/amd64 lsnode 1.2.3", AdvertisedAt: at}.JSON()
	selfText := `{"roles": ["replica", "agents"], "accelerator": null, "drawers": null, "hardware": "linux/amd64 lsnode 1.2.3", ` +
		`"advertised_at": "2026-07-02T21:14:09Z"}`
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"version_vector", VersionVector[any]{ReplicaID: "rep_a", Vector: map[string]int64{"rep_b": 2, "rep_a": 7}, Profile: self,
			Profiles: map[string]any{"rep_b": json.RawMessage(`{"roles":["agents"]}`), "rep_a": self}}.JSON(),
			`{"replica_id": "rep_a", "version_vector": {"rep_a": 7, "rep_b": 2}, "profile": ` + selfText +
				`, "profiles": {"rep_a": ` + selfText + `, "rep_b": {"roles": ["agents"]}}}`},
		{"ops", Ops[any]{Origin: " rep_a", Events: []any{json.RawMessage(`{"id":"evt_1","body":"é"}`)}}.JSON(),
			`{"origin": " rep_a", "events": [{"id": "evt_1", "body": "\u00e9"}], "count": 1}`},
		{"ops_empty", Ops[any]{Origin: "rep_a"}.JSON(), `{"origin": "rep_a", "events": [], "count": 0}`},
		{"artifact", ArtifactAnswer(pyjson.Object{{Key: "id", Value: "art_1"}}), `{"artifact": {"id": "art_1"}}`},
		{"artifact_not_found", ArtifactNotFound(" art_x's"), `{"error": "artifact \" art_x's\" not found"}`},
	}
	for _, tt := range tests {
		if got := compact(t, tt.v); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestEstate(t *testing.T) {
	e := Estate{
		ReplicaID: "rep_a", Name: "host", Vector: map[string]int64{"rep_a": 1, "rep_c": 4, "rep_b": 3, "rep_d": 1},
		Profile: json.RawMessage(`{}`),
		Peers: []EstatePeer{
			{Name: "never", URL: "https://never.example"},
			{Name: "win", URL: "https://win.example", Synced: true, ReplicaID: "rep_b", Reachable: true, LastSuccessAt: at,
				LastPulledEvents: 3, RemoteVersionVector: map[string]int64{"rep_b": 3}, Profile: json.RawMessage(`{"roles": []}`)},
			{Name: "down", URL: "https://down.example", Synced: true, LastError: "boom", LastErrorAt: at.Add(time.Minute)},
		},
		OriginProfiles: map[string]any{"rep_a": json.RawMessage(`{}`)},
		SyncInterval:   15 * time.Second,
		InProcess:      true,
	}
	want := `{"self": {"replica_id": "rep_a", "name": "host", "version_vector": {"rep_a": 1, "rep_b": 3, "rep_c": 4, "rep_d": 1}, ` +
		`"profile": {}}, "peers": [{"name": "never", "url": "https://never.example"}, {"name": "win", "url": "https://win.example", ` +
		`"replica_id": "rep_b", "reachable": true, "last_error": null, "last_error_at": null, ` +
		`"last_success_at": "2026-07-02T21:14:09Z", "last_pulled_events": 3, "last_pulled_artifacts": 0, ` +
		`"remote_version_vector": {"rep_b": 3}, "profile": {"roles": []}}, {"name": "down", "url": "https://down.example", ` +
		`"replica_id": null, "reachable": false, "last_error": "boom", "last_error_at": "2026-07-02T21:15:09Z", ` +
		`"last_success_at": null, "remote_version_vector": null, "profile": null}], "unnamed_origins": ["rep_c", "rep_d"], ` +
		`"origin_profiles": {"rep_a": {}}, "sync_interval_s": 15.0, ` +
		`"estate_source": {"in_process": true, "published_at": null, "writer_alive": true}}`
	if got := compact(t, e.JSON()); got != want {
		t.Errorf("estate:\n got %s\nwant %s", got, want)
	}
	e.Lsnode = pyjson.Object{{Key: "members", Value: []any{}}}
	e.InProcess = false
	want = want[:len(want)-len(`{"in_process": true, "published_at": null, "writer_alive": true}}`)] +
		`{"in_process": false, "published_at": null, "writer_alive": false}, "lsnode": {"members": []}}`
	if got := compact(t, e.JSON()); got != want {
		t.Errorf("estate with the extension:\n got %s\nwant %s", got, want)
	}
}
