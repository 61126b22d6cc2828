package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestPrintStatus_CatchUp(t *testing.T) {
	var s statusz
	raw := `{"replica_id":"rep_a","version_vector":{"rep_a":3,"rep_b":250,"rep_c":9},
		"catch_up":[{"origin":"rep_b","held":250,"target":1000,"behind_ops":750,"behind_seconds":1.5,"ops_per_second":120},
		{"origin":"rep_c","held":9,"target":9,"behind_ops":0,"behind_seconds":0,"ops_per_second":0}]}`
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := printStatus(&out, "http://n1", s); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "CATCHING UP") || !strings.Contains(text, "25.0%") ||
		!strings.Contains(text, "750 ops, 1.5 s") || !strings.Contains(text, "120 ops/s") {
		t.Fatalf("no catch-up progress for rep_b:\n%s", text)
	}
	if strings.Contains(text[strings.Index(text, "CATCHING UP"):], "rep_c") {
		t.Fatalf("caught-up origin rep_c listed as catching up:\n%s", text)
	}

	s.CatchUp = s.CatchUp[1:]
	out.Reset()
	if err := printStatus(&out, "http://n1", s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "CATCHING UP") {
		t.Fatalf("catch-up section with nothing behind:\n%s", out.String())
	}
}

// The requests line breaks the count down by status code, and shows a
// bare count before the first request rather than "0 ()".
func TestRequestsLine(t *testing.T) {
	for _, tc := range []struct {
		total int64
		by    map[string]int64
		want  string
	}{
		{0, nil, "0"},
		{0, map[string]int64{}, "0"},
		{12, map[string]int64{"404": 2, "200": 10}, "12 (200: 10, 404: 2)"},
	} {
		if got := requestsLine(tc.total, tc.by); got != tc.want {
			t.Errorf("requestsLine(%d, %v) = %q, want %q", tc.total, tc.by, got, tc.want)
		}
	}
}

// TestStatus_WaitForCycles: `lsnode status` counts the wait-for cycles
// /statusz reports and points to the command that lists them.
func TestStatus_WaitForCycles(t *testing.T) {
	f := startViewsNode(t)
	code, out, errOut := f.run(t, f.shared, "status")
	if code != exitOK || errOut != "" || !regexp.MustCompile(`(?m)^wait-for cycles +2 \(lsnode agents --cycles\)$`).MatchString(out) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}
