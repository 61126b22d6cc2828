package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestMCPArgumentHandling covers the hub's argument checks, in its order:
// unknown keys, integer coercion, the read-only gate, missing parameters.
func TestMCPArgumentHandling(t *testing.T) {
	h := newMCPHarness(t, Options{})
	cases := []struct {
		name, tool, args string
		code             int64
		msg              string
	}{
		{"unknown parameter", toolEventList, `{"x":1}`, -32602,
			"Unknown parameter 'x' for tool mempalace_event_list"},
		{"unknown parameters in the order sent", toolEventList, `{"zeta":1,"stream":"s","alpha":2}`, -32602,
			"Unknown parameters 'zeta', 'alpha' for tool mempalace_event_list"},
		{"repeated unknown key named once", toolEventList, `{"x":1,"x":2}`, -32602,
			"Unknown parameter 'x' for tool mempalace_event_list"},
		{"unknown before missing", toolEventAppend, `{"text":"hi"}`, -32602,
			"Unknown parameter 'text' for tool mempalace_event_append"},
		{"slim is not a parameter", toolEventList, `{"slim":true}`, -32602,
			"Unknown parameter 'slim' for tool mempalace_event_list"},
		{"uncoercible string", toolEventList, `{"limit":"ten"}`, -32602,
			"Invalid value for parameter 'limit'"},
		{"null integer", toolEventList, `{"limit":null}`, -32602,
			"Invalid value for parameter 'limit'"},
		{"list integer", toolEventWait, `{"timeout_ms":[1]}`, -32602,
			"Invalid value for parameter 'timeout_ms'"},
		{"float string", toolEventWait, `{"timeout_ms":"1.5"}`, -32602,
			"Invalid value for parameter 'timeout_ms'"},
		{"coercion before missing", toolEventOwed, `{"limit":"x"}`, -32602,
			"Invalid value for parameter 'limit'"},
		{"missing parameter", toolArtifactGet, `{}`, -32602,
			"Missing required parameter 'artifact_id' for tool mempalace_artifact_get"},
		{"missing parameters in signature order", toolEventAppend, `{"room":"r"}`, -32602,
			"Missing required parameters 'type', 'stream', 'from_agent' for tool mempalace_event_append"},
		{"null arguments", toolEventAck, `null`, -32602,
			"Missing required parameters 'event_id', 'from_agent' for tool mempalace_event_ack"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(tc.tool, tc.args)
			if r.Error == nil || r.Error.Code != tc.code || r.Error.Message != tc.msg {
				t.Fatalf("got %+v %s\nwant %d %q", r.Error, r.Result, tc.code, tc.msg)
			}
		})
	}
}

// TestMCPArgumentCoercion: integer parameters go through Python's int().
func TestMCPArgumentCoercion(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for i := range 12 {
		h.appendEvent(fmt.Sprintf(`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"%d"}`, i))
	}
	for _, tc := range []struct {
		limit string
		count int
	}{
		{`"3"`, 3}, {`" 4 "`, 4}, {`"1_0"`, 10}, {`"+2"`, 2}, {`2.9`, 2}, {`5e0`, 5}, {`true`, 1}, {`"600"`, 12},
	} {
		p := h.call(toolEventList, `{"limit":`+tc.limit+`}`).Payload(t)
		if p["count"] != json.Number(fmt.Sprint(tc.count)) {
			t.Errorf("limit %s: count %v, want %d", tc.limit, p["count"], tc.count)
		}
	}
	if p := h.call(toolEventList, `{"limit":"0"}`).Payload(t); p["error"] != "limit must be a positive integer" {
		t.Errorf(`limit "0": %v`, p)
	}
	if p := h.call(toolEventList, `{"limit":3,"wait_for_previous":true}`).Payload(t); p["count"] != json.Number("3") {
		t.Errorf("wait_for_previous is dropped silently: %v", p)
	}
	if p := h.call(toolEventWait, `{"timeout_ms":"0","stream":"none"}`).Payload(t); p["timed_out"] != true {
		t.Errorf(`timeout_ms "0": %v`, p)
	}
}

// TestMCPNullIsNotMissing: a required argument sent as null reaches the
// tool, whose validation refuses it.
func TestMCPNullIsNotMissing(t *testing.T) {
	h := newMCPHarness(t, Options{})
	p := h.call(toolEventAppend, `{"type":null,"stream":"s","room":"r","from_agent":"a"}`).Payload(t)
	if p["success"] != false || p["error"] != "type must be a non-empty string" {
		t.Fatalf("got %v", p)
	}
}

// TestMCPReadOnly: writers are hidden and refused; unknown parameters and
// coercion are still reported first; readers keep working.
func TestMCPReadOnly(t *testing.T) {
	h := newMCPHarness(t, Options{Config: Config{ReadOnly: true}})
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(h.rpc("tools/list", "").Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	want := []string{toolArtifactGet, toolAwaiting, toolEventList, toolEventOwed, toolSearch, toolEventWait, toolMeshPeers}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("tools/list in read-only mode: %v, want %v", names, want)
	}
	for _, tool := range []string{toolEventAppend, toolTaskCreate, toolEventAck, toolArtifactPut, toolPatchSubmit} {
		r := h.call(tool, `{}`)
		if r.Error == nil || r.Error.Code != -32003 || r.Error.Message != "Server is in read-only mode; this tool is disabled" ||
			string(r.Error.Data) != `{"tool":"`+tool+`"}` {
			t.Errorf("%s: %+v", tool, r.Error)
		}
	}
	if r := h.call(toolEventAppend, `{"bogus":1}`); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("unknown parameter on a refused writer: %+v", r.Error)
	}
	if r := h.call(toolEventList, `{}`); r.Payload(t)["count"] != json.Number("0") {
		t.Errorf("event_list in read-only mode: %s", r.Result)
	}
}

func TestPyIntArg(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want any
		ok   bool
	}{
		{json.Number("7"), json.Number("7"), true},
		{json.Number("-3.99"), json.Number("-3"), true},
		{json.Number("1e20"), json.Number("100000000000000000000"), true},
		{json.Number("1e400"), nil, false},
		{true, true, true},
		{"  -12 ", json.Number("-12"), true},
		{"1_000_000", json.Number("1000000"), true},
		{"\uff11\uff12", json.Number("12"), true},
		{"\u00a0-\u0663\u3000", json.Number("-3"), true},
		{"1_\u0660", json.Number("10"), true},
		{" 1\x1c", nil, false},
		{"\x1f2", nil, false},
		{"\u00b2", nil, false},
		{"99999999999999999999999", json.Number("99999999999999999999999"), true},
		{"1__0", nil, false},
		{"_1", nil, false},
		{"1_", nil, false},
		{"0x10", nil, false},
		{"", nil, false},
		{"-", nil, false},
		{nil, nil, false},
		{[]any{}, nil, false},
		{map[string]any{}, nil, false},
	} {
		got, ok := pyIntArg(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("pyIntArg(%#v) = %#v, %v; want %#v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestParseArgsOrderAndRepeats: a repeated key keeps its first place and
// takes its last value, with few arguments (found by a scan) and with
// many (found through the index).
func TestParseArgsOrderAndRepeats(t *testing.T) {
	for _, n := range []int{3, indexAbove, indexAbove + 1, 3 * indexAbove} {
		var b strings.Builder
		b.WriteString(`{`)
		var want []string
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
			want = append(want, fmt.Sprintf("k%d", i))
		}
		for i := range n {
			fmt.Fprintf(&b, `"k%d":"last %d",`, i, i)
		}
		b.WriteString(`"k0":null}`)
		a, err := parseArgs(json.RawMessage(b.String()))
		if err != nil {
			t.Fatalf("%d arguments: %v", n, err)
		}
		if got := argKeys(a); !slices.Equal(got, want) {
			t.Fatalf("%d arguments: keys %q, want %q", n, got, want)
		}
		if !a.has("k0") || a.get("k0") != nil || string(a.text("k0")) != "null" {
			t.Fatalf("%d arguments: k0 = %v %q, want null", n, a.get("k0"), a.text("k0"))
		}
		for i := 1; i < n; i++ {
			if k := fmt.Sprintf("k%d", i); a.get(k) != fmt.Sprintf("last %d", i) {
				t.Fatalf("%d arguments: %s = %v", n, k, a.get(k))
			}
		}
		if a.has("absent") || a.get("absent") != nil || a.text("absent") != nil {
			t.Fatalf("%d arguments: an absent key is found", n)
		}
	}
}
