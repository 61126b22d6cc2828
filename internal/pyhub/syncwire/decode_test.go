package syncwire

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestDecodeVersionVector(t *testing.T) {
	vv, err := DecodeVersionVector([]byte(`{"replica_id": "rep_a", "version_vector": {"rep_a": 7, "rep_b": 9223372036854775807}, ` +
		`"profile": {"roles": ["agents"]}, "profiles": {"rep_b": null}}`))
	if err != nil || vv.ReplicaID != "rep_a" || !reflect.DeepEqual(vv.Vector, map[string]int64{"rep_a": 7, "rep_b": 1<<63 - 1}) ||
		string(vv.Profile) != `{"roles": ["agents"]}` || string(vv.Profiles["rep_b"]) != "null" {
		t.Fatalf("%+v, %v", vv, err)
	}
	// A peer that says nothing: a vector all the same, no profile.
	vv, err = DecodeVersionVector([]byte(`{"replica_id": null, "profile": null}`))
	if err != nil || vv.ReplicaID != "" || vv.Vector == nil || len(vv.Vector) != 0 || vv.Profile != nil {
		t.Fatalf("%+v, %v", vv, err)
	}
	_, err = DecodeVersionVector([]byte(`{"version_vector": {"rep_c": 1, "rep_b": 1.5, "rep_a": 2e3}}`))
	var top *TopError
	if !errors.As(err, &top) || err.Error() != "top of origin 'rep_a' is 2e3, not an integer" {
		t.Fatalf("error %v, want the first bad top in origin order", err)
	}
	if _, err := DecodeVersionVector([]byte(`{"version_vector": {}} {}`)); !errors.Is(err, ErrTrailingData) {
		t.Fatalf("trailing data: %v", err)
	}
	if _, err := DecodeVersionVector([]byte(`{"version_vector": []}`)); err == nil || errors.As(err, &top) {
		t.Fatalf("a list for a vector: %v", err)
	}
}

func TestDecodeOps(t *testing.T) {
	page, err := DecodeOps([]byte(`{"origin": "rep_a", "events": [{"id": "evt_1"}, 1], "count": 2}`))
	if err != nil || page.Origin != "rep_a" || len(page.Events) != 2 || string(page.Events[0]) != `{"id": "evt_1"}` {
		t.Fatalf("%+v, %v", page, err)
	}
	if _, err := DecodeOps([]byte(`{"events": [], "count": "0"}`)); err == nil {
		t.Fatal("a count that is not an integer was accepted")
	}
}

func TestDecodeArtifact(t *testing.T) {
	for body, want := range map[string]string{`{"artifact": {"id": "art_1"}}`: `{"id": "art_1"}`, `{"artifact": null}`: "", `{}`: ""} {
		got, err := DecodeArtifact([]byte(body))
		if err != nil || string(got) != want || (want == "" && got != nil) {
			t.Errorf("%s: %q, %v", body, got, err)
		}
	}
}

// TestRoundTrip: what the servers answer, the pullers read back.
func TestRoundTrip(t *testing.T) {
	body := []byte(compact(t, VersionVector[any]{ReplicaID: "rep_a", Vector: map[string]int64{"rep_a": 3},
		Profile: Profile{Roles: []string{"replica"}, AdvertisedAt: at}.JSON(), Profiles: map[string]any{}}.JSON()))
	vv, err := DecodeVersionVector(body)
	if err != nil || vv.ReplicaID != "rep_a" || vv.Vector["rep_a"] != 3 || len(vv.Profile) == 0 {
		t.Fatalf("%+v, %v", vv, err)
	}
	page, err := DecodeOps([]byte(compact(t, Ops[any]{Origin: "rep_a", Events: []any{json.RawMessage(`{"id": "evt_1"}`)}}.JSON())))
	if err != nil || page.Origin != "rep_a" || len(page.Events) != 1 {
		t.Fatalf("%+v, %v", page, err)
	}
	rec, err := DecodeArtifact([]byte(compact(t, ArtifactAnswer(json.RawMessage(`{"id": "art_1"}`)))))
	if err != nil || string(rec) != `{"id": "art_1"}` {
		t.Fatalf("%s, %v", rec, err)
	}
}
