package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// referenceMembers reads an object's keys in order through encoding/json's
// token stream and its members through json.Unmarshal into a map.
func referenceMembers(raw []byte) (keys []string, members map[string]json.RawMessage, ok bool) {
	if !json.Valid(raw) || !isObjectText(raw) || json.Unmarshal(raw, &members) != nil {
		return nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, nil, false
		}
	}
	return keys, members, true
}

func isObjectText(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func referenceValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// sameMembers fails unless Members and Value agree with encoding/json on
// raw, with and without interning, and Members' error says whether
// json.Valid accepts raw.
func sameMembers(t *testing.T, raw []byte) {
	t.Helper()
	for _, r := range []Reader{{}, {Intern: func(b []byte) string { return string(b) }}} {
		members, err := r.Members(raw)
		keys, want, ok := referenceMembers(raw)
		if (err == nil) != ok {
			t.Fatalf("Members(%q): error %v, encoding/json reads it: %v", raw, err, ok)
		}
		if err != nil && errors.Is(err, ErrSyntax) == json.Valid(raw) {
			t.Fatalf("Members(%q): error %v, but json.Valid says %v", raw, err, json.Valid(raw))
		}
		if !ok {
			continue
		}
		var gotKeys []string
		for _, m := range members {
			gotKeys = append(gotKeys, m.Key)
			v, err := r.Value(m.Value)
			ref, refErr := referenceValue(m.Value)
			if err != nil || refErr != nil || !reflect.DeepEqual(v, ref) {
				t.Fatalf("Value(%q) = %#v, %v; encoding/json %#v, %v", m.Value, v, err, ref, refErr)
			}
		}
		if !reflect.DeepEqual(gotKeys, keys) {
			t.Fatalf("Members(%q) keys %q, want %q", raw, gotKeys, keys)
		}
		if got := members.Map(); len(got) != len(want) {
			t.Fatalf("Members(%q) = %q, want %q", raw, got, want)
		}
		for k, v := range want {
			if got := members.Get(k); !bytes.Equal(got, v) {
				t.Fatalf("Members(%q).Get(%q) = %q, want %q", raw, k, got, v)
			}
		}
	}
}

func nested(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

var memberSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a" : "x" , "b":[1,{"c":"]}"}],"c":null,"d":true,"e":false}`,
	`{"a":1,"a":2}`, `{"\u0061":"\u00e9\ud800","b\"":"\\","c":"\ud83d\ude00"}`, "{\"k\":\"\xff\"}",
	`{"n":-0.5e+10,"m":0,"o":12345678901234567890}`, `{"x":"é 🙂 \u2028"}`, `[1]`, `"s"`, `1`, `null`, ``, `{`, `{"a":}`,
	`{"a":1}x`, `{"a":{"b":{"c":[[[]]]}}}`, `{"":""}`, "{\"a\":\"\t\"}",
}

func TestMembersMatchEncodingJSON(t *testing.T) {
	inputs := append([]string{
		`{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"\q":1}`, `{"a":[1,]}`, `{"a":1,}`, `{"a":01}`, `{"a":1.}`,
		`{"a":-}`, `{"a":tru}`, `{"a":truex}`, `{"a" 1}`, `{a:1}`, `[1,`, `[1]]`, ` "s" `, `"\x"`, `{"a":1} `,
		nested(stdMaxDepth), nested(stdMaxDepth + 1), "[" + nested(stdMaxDepth-1) + "]", "[" + nested(stdMaxDepth) + "]",
	}, memberSeeds...)
	for _, s := range inputs {
		sameMembers(t, []byte(s))
	}
}

// TestMembersIntern: keys and plain string values come from Intern;
// escaped ones are decoded.
func TestMembersIntern(t *testing.T) {
	var asked []string
	r := Reader{Intern: func(b []byte) string { asked = append(asked, string(b)); return "interned" }}
	members, err := r.Members([]byte(`{"name":"mempalace_event_list","\u0061":"x\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	name, _ := r.Value(members.Get("interned"))
	escaped, _ := r.Value(members[1].Value)
	if members[0].Key != "interned" || members[1].Key != "a" || name != "interned" || escaped != "x\n" {
		t.Fatalf("members %q, values %q %q", members, name, escaped)
	}
	if want := []string{"name", "mempalace_event_list"}; !reflect.DeepEqual(asked, want) {
		t.Fatalf("interned %q, want %q", asked, want)
	}
}

func FuzzObjectMembers(f *testing.F) {
	for _, s := range memberSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameMembers(t, raw) })
}
