package store

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// The texts below are the Python hub's ValueError texts (docs/compatibility.md#validation-and-error-texts); clients match on them, so they are spelled out, not derived.

func TestAppend_ValidationTexts(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	ok := func(mod func(*AppendInput)) AppendInput {
		in := AppendInput{Type: "task.request", Stream: "project/x", Room: "delegation", FromAgent: "a@1"}
		mod(&in)
		return in
	}
	long := strings.Repeat("é", 257)
	cases := []struct {
		name string
		in   AppendInput
		want string
	}{
		{"type empty", ok(func(in *AppendInput) { in.Type = "" }), "type must be a non-empty string"},
		{"type blank", ok(func(in *AppendInput) { in.Type = " \t" }), "type must be a non-empty string"},
		{"type upper", ok(func(in *AppendInput) { in.Type = "Task" }), "type='Task' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
		{"type quote repr", ok(func(in *AppendInput) { in.Type = "it's" }), `type="it's" is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)`},
		{"type 65 chars", ok(func(in *AppendInput) { in.Type = strings.Repeat("a", 65) }), "type='" + strings.Repeat("a", 65) + "' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
		{"type checked first", AppendInput{Type: "X"}, "type='X' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
		{"stream missing", ok(func(in *AppendInput) { in.Stream = "" }), "stream must be a non-empty string"},
		{"stream blank", ok(func(in *AppendInput) { in.Stream = "   " }), "stream must be a non-empty string"},
		{"stream before room", ok(func(in *AppendInput) { in.Stream, in.Room = "", "" }), "stream must be a non-empty string"},
		{"room missing", ok(func(in *AppendInput) { in.Room = "" }), "room must be a non-empty string"},
		{"room too long", ok(func(in *AppendInput) { in.Room = long }), "room exceeds maximum length of 256 characters"},
		{"topic blank", ok(func(in *AppendInput) { in.Topic = "  " }), "topic must be a non-empty string"},
		{"topic control", ok(func(in *AppendInput) { in.Topic = "a\x01b" }), "topic contains control characters"},
		{"from_agent missing", ok(func(in *AppendInput) { in.FromAgent = "" }), "from_agent must be a non-empty string"},
		{"from_agent DEL", ok(func(in *AppendInput) { in.FromAgent = "a\x7f" }), "from_agent contains control characters"},
		{"to_agent newline inside", ok(func(in *AppendInput) { in.ToAgent = "b\n@2" }), "to_agent contains control characters"},
		{"correlation_id too long", ok(func(in *AppendInput) { in.CorrelationID = long }), "correlation_id exceeds maximum length of 256 characters"},
		{"branch blank", ok(func(in *AppendInput) { in.Branch = "\u3000" }), "branch must be a non-empty string"},
		{"base_commit control", ok(func(in *AppendInput) { in.BaseCommit = "ab\tcd" }), "base_commit contains control characters"},
		{"status unknown", ok(func(in *AppendInput) { in.Status = "done" }), "status='done' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"status not stripped", ok(func(in *AppendInput) { in.Status = " open" }), "status=' open' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"status case", ok(func(in *AppendInput) { in.Status = "Open" }), "status='Open' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"body NUL", ok(func(in *AppendInput) { in.Body = "a\x00b" }), "body contains null bytes"},
		{"body too big", ok(func(in *AppendInput) { in.Body = strings.Repeat("x", 262145) }), "body is 262145 bytes; maximum is 262144 bytes"},
		{"body too big multibyte", ok(func(in *AppendInput) { in.Body = strings.Repeat("é", 131073) }), "body is 262146 bytes; maximum is 262144 bytes"},
		{"metadata array", ok(func(in *AppendInput) { in.Metadata = json.RawMessage(`[1]`) }), "metadata must be an object"},
		{"metadata string", ok(func(in *AppendInput) { in.Metadata = json.RawMessage(`"x"`) }), "metadata must be an object"},
		{"metadata too big", ok(func(in *AppendInput) {
			in.Metadata = json.RawMessage(`{"k":"` + strings.Repeat("x", 65536) + `"}`)
		}), "metadata exceeds maximum size of 65536 bytes"},
		{"metadata reserved key", ok(func(in *AppendInput) { in.Metadata = json.RawMessage(`{"_lsnode":{"idem":"k"}}`) }), "metadata key '_lsnode' is reserved for lsnode"},
		{"artifact_ids empty string", ok(func(in *AppendInput) { in.ArtifactIDs = []string{"art_1", ""} }), "artifact_ids must be a list of artifact id strings"},
		{"artifact_ids unknown", ok(func(in *AppendInput) { in.ArtifactIDs = []string{"art_20260101T000000_000000000000"} }), "artifact_ids references unknown artifact 'art_20260101T000000_000000000000'"},
	}
	before := tableCounts(t, s)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Append(ctx, tc.in)
			wantErrText(t, err, ErrInvalid, tc.want)
			if after := tableCounts(t, s); !sameCounts(before, after) {
				t.Fatalf("a refused append stored something: %v -> %v", before, after)
			}
		})
	}
	if vv := s.VersionVector(); len(vv) != 0 {
		t.Fatalf("refused appends moved the version vector: %v", vv)
	}
}

func TestAppend_LimitsAreInclusive(t *testing.T) {
	s, _ := openTestStore(t)
	in := AppendInput{Type: strings.Repeat("a", 64), Stream: strings.Repeat("s", 256), Room: "  r  ",
		FromAgent: "a@1", Body: strings.Repeat("x", 262144), Status: "open"}
	ev := mustAppend(t, s, in)
	if ev.Room != "r" {
		t.Errorf("room = %q; want stripped %q", ev.Room, "r")
	}
	if len(ev.Body) != 262144 {
		t.Errorf("body cut to %d bytes", len(ev.Body))
	}
	big := `{"k":"` + strings.Repeat("x", 65536-9) + `"}` // canonical {"k": "..."} is exactly 65536 bytes
	if _, err := s.Append(context.Background(), AppendInput{Type: "t", Stream: "s", Room: "r", FromAgent: "a", Metadata: json.RawMessage(big)}); err != nil {
		t.Fatalf("metadata of exactly 65536 canonical bytes refused: %v", err)
	}
}

func TestAppend_BodyVerbatimAndMetadataCanonical(t *testing.T) {
	s, _ := openTestStore(t)
	body := "  line one\r\n\ttabbed — ünïcode  \n"
	ev := mustAppend(t, s, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a",
		Body: body, Metadata: json.RawMessage(`{"z": 1, "a": {"y": "é", "b": [1, 2.50]}}`), ArtifactIDs: nil})
	got, err := s.List(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Events[0].Body != body || ev.Body != body {
		t.Errorf("body not verbatim: %q", got.Events[0].Body)
	}
	// Python json.dumps(sort_keys=True, ensure_ascii=False): ", " and ": ".
	want := `{"a": {"b": [1, 2.5], "y": "é"}, "z": 1}`
	if string(got.Events[0].Metadata) != want {
		t.Errorf("metadata_json = %s; want %s", got.Events[0].Metadata, want)
	}
}

func TestAck_ValidationTexts(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	target := mustAppend(t, s, note("a@1", "b@2"))
	before := tableCounts(t, s)
	cases := []struct {
		name string
		in   AckInput
		kind error
		want string
	}{
		{"event_id missing", AckInput{FromAgent: "b@2"}, ErrInvalid, "event_id must be a non-empty string"},
		{"event_id control", AckInput{EventID: "evt\x01", FromAgent: "b@2"}, ErrInvalid, "event_id contains control characters"},
		{"event unknown", AckInput{EventID: "evt_20260101T000000_0123456789ab", FromAgent: "b@2"}, ErrNotFound, "event 'evt_20260101T000000_0123456789ab' not found"},
		{"from_agent missing", AckInput{EventID: target.ID}, ErrInvalid, "from_agent must be a non-empty string"},
		{"status bad", AckInput{EventID: target.ID, FromAgent: "b@2", Status: "ok"}, ErrInvalid, "status='ok' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"body NUL", AckInput{EventID: target.ID, FromAgent: "b@2", Body: "\x00"}, ErrInvalid, "body contains null bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Ack(ctx, tc.in)
			wantErrText(t, err, tc.kind, tc.want)
			if after := tableCounts(t, s); !sameCounts(before, after) {
				t.Fatalf("a refused ack stored something: %v -> %v", before, after)
			}
		})
	}
}

func TestAck_Shape(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	target := mustAppend(t, s, AppendInput{Type: "task.request", Stream: "project/x", Room: "delegation", Topic: "t1",
		FromAgent: "a@1", ToAgent: "b@2", Status: "open"})
	w, err := s.Ack(ctx, AckInput{EventID: " " + target.ID + " ", FromAgent: "b@2", Status: "claimed", Body: "on it"})
	if err != nil {
		t.Fatal(err)
	}
	a := w.Event
	if a.Type != "event.ack" || a.Stream != "project/x" || a.Room != "delegation" || a.Topic != "t1" ||
		a.ToAgent != "a@1" || a.CorrelationID != target.ID || a.Status != "claimed" || a.Body != "on it" {
		t.Fatalf("ack = %+v", a)
	}
	if client := clientPart(t, a.Metadata); client != `{"ack_of": "`+target.ID+`"}` {
		t.Errorf("ack metadata (client part) = %s", client)
	}
	w2, err := s.Ack(ctx, AckInput{EventID: target.ID, FromAgent: "b@2", Topic: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if w2.Event.Topic != "other" || w2.Event.Status != "" {
		t.Errorf("explicit topic / null status not kept: %+v", w2.Event)
	}
	cleared, err := s.Ack(ctx, AckInput{EventID: target.ID, FromAgent: "b@2", ClearTopic: true})
	if err != nil {
		t.Fatal(err)
	}
	if cleared.Event.Topic != "" {
		t.Errorf("ack with the topic cleared has topic %q", cleared.Event.Topic)
	}
	withCorr := mustAppend(t, s, AppendInput{Type: "q", Stream: "s", Room: "r", FromAgent: "a@1", ToAgent: "b@2", CorrelationID: "thread-1"})
	w3, err := s.Ack(ctx, AckInput{EventID: withCorr.ID, FromAgent: "b@2"})
	if err != nil {
		t.Fatal(err)
	}
	if w3.Event.CorrelationID != "thread-1" {
		t.Errorf("ack correlation = %q; want the target's", w3.Event.CorrelationID)
	}
	// The target is never mutated.
	got, err := s.eventByID(ctx, target.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "open" || got.CorrelationID != "" {
		t.Errorf("target mutated: %+v", got)
	}
}

func TestPutArtifact_ValidationTexts(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	cases := []struct {
		name string
		in   ArtifactInput
		want string
	}{
		{"kind unknown", ArtifactInput{Kind: "bin", Content: "x", CreatedBy: "a"}, "kind='bin' is not one of: file, json, log, note, patch"},
		{"kind empty", ArtifactInput{Kind: "", Content: "x", CreatedBy: "a"}, "kind='' is not one of: file, json, log, note, patch"},
		{"kind checked first", ArtifactInput{Kind: "Patch"}, "kind='Patch' is not one of: file, json, log, note, patch"},
		{"created_by before content", ArtifactInput{Kind: "note"}, "created_by must be a non-empty string"},
		{"content empty", ArtifactInput{Kind: "note", CreatedBy: "a"}, "content must be a non-empty string"},
		{"content NUL", ArtifactInput{Kind: "log", CreatedBy: "a", Content: "x\x00"}, "content contains null bytes"},
		{"content too big", ArtifactInput{Kind: "file", CreatedBy: "a", Content: strings.Repeat("y", 4194305)}, "content is 4194305 bytes; maximum is 4194304 bytes"},
		{"metadata not object", ArtifactInput{Kind: "json", CreatedBy: "a", Content: "{}", Metadata: json.RawMessage(`1`)}, "metadata must be an object"},
		{"metadata reserved", ArtifactInput{Kind: "json", CreatedBy: "a", Content: "{}", Metadata: json.RawMessage(`{"_lsnode":1}`)}, "metadata key '_lsnode' is reserved for lsnode"},
	}
	before := tableCounts(t, s)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.PutArtifact(ctx, tc.in)
			wantErrText(t, err, ErrInvalid, tc.want)
			if after := tableCounts(t, s); !sameCounts(before, after) {
				t.Fatalf("a refused put stored something: %v -> %v", before, after)
			}
		})
	}
	if _, err := s.PutArtifact(ctx, ArtifactInput{Kind: "file", CreatedBy: "a", Content: strings.Repeat("y", 4194304)}); err != nil {
		t.Fatalf("4 MiB exactly refused: %v", err)
	}
}

func TestGetArtifact_Errors(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	_, err := s.GetArtifact(ctx, "")
	wantErrText(t, err, ErrInvalid, "artifact_id must be a non-empty string")
	_, err = s.GetArtifact(ctx, "art_20260101T000000_000000000000")
	wantErrText(t, err, ErrNotFound, "artifact 'art_20260101T000000_000000000000' not found")
}

func TestPatchSubmit_RefusedEventLeavesNoOrphan(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	before := tableCounts(t, s)
	cases := []struct {
		name string
		in   PatchInput
		want string
	}{
		// The artifact is validated first, as in the hub.
		{"content empty", PatchInput{FromAgent: "a", Stream: "s"}, "content must be a non-empty string"},
		{"from_agent missing", PatchInput{Content: "diff\n", Stream: "s"}, "created_by must be a non-empty string"},
		// Then the event: the hub would leave an orphan artifact here.
		{"stream missing", PatchInput{Content: "diff\n", FromAgent: "a"}, "stream must be a non-empty string"},
		{"to_agent control", PatchInput{Content: "diff\n", FromAgent: "a", Stream: "s", ToAgent: "\x1b"}, "to_agent contains control characters"},
		{"body NUL", PatchInput{Content: "diff\n", FromAgent: "a", Stream: "s", Body: "\x00"}, "body contains null bytes"},
		{"metadata reserved", PatchInput{Content: "diff\n", FromAgent: "a", Stream: "s", Metadata: json.RawMessage(`{"_lsnode":{}}`)}, "metadata key '_lsnode' is reserved for lsnode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.PatchSubmit(ctx, tc.in)
			wantErrText(t, err, ErrInvalid, tc.want)
			if after := tableCounts(t, s); !sameCounts(before, after) {
				t.Fatalf("a refused patch_submit stored something: %v -> %v", before, after)
			}
		})
	}
}

func TestPatchSubmit_Shape(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	w, err := s.PatchSubmit(ctx, PatchInput{Content: "--- a\n+++ b\n", FromAgent: "a@1", Stream: "project/x",
		ToAgent: "b@2", CorrelationID: "task_1", Metadata: json.RawMessage(`{"k":"v"}`)})
	if err != nil {
		t.Fatal(err)
	}
	e, a := w.Event, w.Artifact
	if a == nil || a.Kind != "patch" || a.CreatedBy != "a@1" || len(a.Warnings) != 0 {
		t.Fatalf("artifact = %+v", a)
	}
	if e.Type != "patch.ready" || e.Status != "ready" || e.Room != "patches" || len(e.ArtifactIDs) != 1 || e.ArtifactIDs[0] != a.ID {
		t.Fatalf("event = %+v", e)
	}
	if clientPart(t, e.Metadata) != `{"k": "v"}` || string(a.Metadata) != `{"k": "v"}` {
		t.Errorf("metadata: event %s artifact %s", e.Metadata, a.Metadata)
	}
	c := tableCounts(t, s)
	if c["events"] != 1 || c["artifacts"] != 1 || c["event_artifacts"] != 1 {
		t.Errorf("counts = %v", c)
	}
}

func TestTaskCreate_ValidationTexts(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	ok := func(mod func(*TaskInput)) TaskInput {
		in := TaskInput{Project: "P", FromAgent: "a@1", ToAgent: "b@2", Goal: "g", Branch: "main", BaseCommit: "abcdef1", Done: "d"}
		mod(&in)
		return in
	}
	cases := []struct {
		name string
		in   TaskInput
		want string
	}{
		{"project", ok(func(in *TaskInput) { in.Project = " " }), "task project must not be empty"},
		{"from_agent", ok(func(in *TaskInput) { in.FromAgent = "" }), "task requesting agent must not be empty"},
		{"to_agent", ok(func(in *TaskInput) { in.ToAgent = "" }), "task destination agent must not be empty"},
		{"branch", ok(func(in *TaskInput) { in.Branch = "" }), "task branch must not be empty"},
		{"base commit empty", ok(func(in *TaskInput) { in.BaseCommit = "" }), "task base commit must not be empty"},
		{"base commit a branch", ok(func(in *TaskInput) { in.BaseCommit = "main" }), "task base commit must be a hexadecimal Git object id (at least 7 characters), not a branch or tag"},
		{"base commit short", ok(func(in *TaskInput) { in.BaseCommit = "abc123" }), "task base commit must be a hexadecimal Git object id (at least 7 characters), not a branch or tag"},
		{"goal", ok(func(in *TaskInput) { in.Goal = "\n" }), "task goal must not be empty"},
		{"done", ok(func(in *TaskInput) { in.Done = "" }), "task definition of done must not be empty"},
		{"order: project before base commit", TaskInput{BaseCommit: "zz"}, "task project must not be empty"},
		{"routing rules still apply", ok(func(in *TaskInput) { in.ToAgent = "b\x01" }), "to_agent contains control characters"},
	}
	before := tableCounts(t, s)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.TaskCreate(ctx, tc.in)
			wantErrText(t, err, ErrInvalid, tc.want)
			if after := tableCounts(t, s); !sameCounts(before, after) {
				t.Fatalf("a refused task stored something: %v -> %v", before, after)
			}
		})
	}
}

func TestTaskCreate_Shape(t *testing.T) {
	s, _ := openTestStore(t)
	w, handoff, err := s.TaskCreate(context.Background(), TaskInput{Project: "My Project!", FromAgent: " a@1 ", ToAgent: "b@2",
		Goal: "Fix the Build", Branch: "feat/x", BaseCommit: "ABCDEF1234", Done: "tests pass"})
	if err != nil {
		t.Fatal(err)
	}
	e := w.Event
	if e.Type != "task.request" || e.Stream != "project/my_project" || e.Room != "delegation" || e.Status != "open" ||
		e.FromAgent != "a@1" || e.ToAgent != "b@2" || e.Branch != "feat/x" || e.BaseCommit != "abcdef1234" {
		t.Fatalf("task = %+v", e)
	}
	if !strings.HasPrefix(e.CorrelationID, "task_fix_the_build_") || len(e.CorrelationID) != len("task_fix_the_build_")+8 {
		t.Errorf("correlation id = %q", e.CorrelationID)
	}
	wantBody := "Goal:\nFix the Build\n\nDefinition of done:\ntests pass\n\nDelivery:\n" +
		"Close the loop through MemPalace: claim the request, then submit a patch " +
		"with mempalace_patch_submit or reply with blocked/failed evidence."
	if e.Body != wantBody {
		t.Errorf("body\n got %q\nwant %q", e.Body, wantBody)
	}
	wantHandoff := "Open MemPalace task " + e.CorrelationID + " as b@2. " +
		"Claim it, follow its exact definition of done, and deliver through the logstream."
	if handoff != wantHandoff {
		t.Errorf("handoff\n got %q\nwant %q", handoff, wantHandoff)
	}
	// Slug fallbacks: a goal or project with nothing sluggable.
	w2, _, err := s.TaskCreate(context.Background(), TaskInput{Project: "!!!", FromAgent: "a", ToAgent: "b",
		Goal: "???", Branch: "m", BaseCommit: "1234567", Done: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if w2.Event.Stream != "project/project" || !strings.HasPrefix(w2.Event.CorrelationID, "task_work_") {
		t.Errorf("fallback slugs: stream %q correlation %q", w2.Event.Stream, w2.Event.CorrelationID)
	}
}

func TestList_FilterValidationTexts(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	cases := []struct {
		name string
		f    Filter
		kind error
		want string
	}{
		{"stream blank", Filter{Stream: " "}, ErrInvalid, "stream must be a non-empty string"},
		{"room long", Filter{Room: strings.Repeat("r", 257)}, ErrInvalid, "room exceeds maximum length of 256 characters"},
		{"topic control", Filter{Topic: "\x00"}, ErrInvalid, "topic contains control characters"},
		{"type bad", Filter{Type: "A.B"}, ErrInvalid, "type='A.B' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
		{"to_agent blank", Filter{ToAgent: "\t"}, ErrInvalid, "to_agent must be a non-empty string"},
		{"correlation control", Filter{CorrelationID: "c\x1fd"}, ErrInvalid, "correlation_id contains control characters"},
		{"status bad", Filter{Status: "closed"}, ErrInvalid, "status='closed' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"since_created_at bad", Filter{SinceCreatedAt: "yesterday"}, ErrInvalid, "since_created_at='yesterday' is not a valid ISO-8601 date or UTC datetime (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"},
		{"since_created_at not a date", Filter{SinceCreatedAt: "2026-02-30"}, ErrInvalid, "since_created_at='2026-02-30' is not a valid ISO-8601 date or UTC datetime (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"},
		{"order bad", Filter{Order: "Up "}, ErrInvalid, "order='up' must be 'asc' or 'desc'"},
		{"before_event_id unknown", Filter{BeforeEventID: "evt_x"}, ErrNotFound, "before_event_id 'evt_x' not found"},
		{"type before to_agent", Filter{Type: "X", ToAgent: " "}, ErrInvalid, "type='X' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.List(ctx, tc.f)
			wantErrText(t, err, tc.kind, tc.want)
			_, _, err = s.Wait(ctx, tc.f, 0)
			if err == nil || err.Error() != tc.want {
				t.Errorf("wait err = %v; want %q", err, tc.want)
			}
		})
	}
	// since_event_id on a replica that does not hold it: the hub's text,
	// plus a retryable hint, marked ErrCursorNotHeld.
	_, err := s.List(ctx, Filter{SinceEventID: "evt_missing"})
	if !strings.HasPrefix(err.Error(), "since_event_id 'evt_missing' not found") {
		t.Errorf("since_event_id err = %q", err)
	}
	wantErrText(t, err, ErrCursorNotHeld, err.Error())
	// Accepted forms of since_created_at.
	for _, v := range []string{"2026-01-02", "2026-01-02T03:04:05Z", " 2026-01-02T03:04:05+00:00 "} {
		if _, err := s.List(ctx, Filter{SinceCreatedAt: v}); err != nil {
			t.Errorf("since_created_at %q refused: %v", v, err)
		}
	}
}

func TestOpsAfter_ValidationTexts(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	_, err := s.OpsAfter(ctx, "", 0, 10, 0)
	wantErrText(t, err, ErrInvalid, "origin must be a non-empty string")
	_, err = s.OpsAfter(ctx, "rep\x01", 0, 10, 0)
	wantErrText(t, err, ErrInvalid, "origin contains control characters")
	_, err = s.OpsAfter(ctx, s.ReplicaID(), -1, 10, 0)
	wantErrText(t, err, ErrInvalid, "after_seq must be a non-negative integer")
	ops, err := s.OpsAfter(ctx, "rep_unknown", 0, 10, 0)
	if err != nil || len(ops) != 0 {
		t.Errorf("unknown origin: %v %v", ops, err)
	}
}

func TestOwed_ValidationTexts(t *testing.T) {
	s, _ := openTestStore(t)
	_, err := s.Owed(context.Background(), "", "", 10)
	wantErrText(t, err, ErrInvalid, "agent must be a non-empty string")
	_, err = s.Owed(context.Background(), "a", "\x01", 10)
	wantErrText(t, err, ErrInvalid, "stream contains control characters")
}

// clientPart is stored metadata without lsnode's extension, as the client
// wrote it (canonical text).
func clientPart(t testing.TB, meta json.RawMessage) string {
	t.Helper()
	obj, _, err := splitMetadata(meta)
	if err != nil {
		t.Fatalf("metadata %s: %v", meta, err)
	}
	out, err := joinMetadata(obj, extension{})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
