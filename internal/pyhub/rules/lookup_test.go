package rules

import "testing"

// TestLookupTexts: the hub's texts for an id not held, the id shown as
// repr() shows it.
func TestLookupTexts(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{EventNotFound("evt_x"), "event 'evt_x' not found"},
		{ArtifactNotFound("art_x"), "artifact 'art_x' not found"},
		{ArtifactNotFound("it's"), `artifact "it's" not found`},
		{UnknownArtifact("art_x"), "artifact_ids references unknown artifact 'art_x'"},
		{CursorNotFound("since_event_id", "evt_nope"), "since_event_id 'evt_nope' not found"},
		{CursorNotFound("before_event_id", "a\nb"), `before_event_id 'a\nb' not found`},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
