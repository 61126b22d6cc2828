package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// referenceMembers reads an object's keys in order through encoding/json's
// token stream and its members through json.Unmarshal into a map.
func referenceMembers(raw []byte) (keys []string, members map[string]json.RawMessage, ok bool) {
	if !json.Valid(raw) || !isObject(raw) || json.Unmarshal(raw, &members) != nil {
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

func referenceValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// sameMembers fails unless objectMembers and jsonValue agree with
// encoding/json on raw.
func sameMembers(t *testing.T, raw []byte) {
	t.Helper()
	members, err := objectMembers(raw)
	keys, want, ok := referenceMembers(raw)
	if (err == nil) != ok {
		t.Fatalf("objectMembers(%q): error %v, encoding/json reads it: %v", raw, err, ok)
	}
	if !ok {
		return
	}
	var gotKeys []string
	for _, m := range members {
		gotKeys = append(gotKeys, m.key)
		v, err := jsonValue(m.value)
		ref, refErr := referenceValue(m.value)
		if err != nil || refErr != nil || !reflect.DeepEqual(v, ref) {
			t.Fatalf("jsonValue(%q) = %#v, %v; encoding/json %#v, %v", m.value, v, err, ref, refErr)
		}
	}
	if !reflect.DeepEqual(gotKeys, keys) {
		t.Fatalf("objectMembers(%q) keys %q, want %q", raw, gotKeys, keys)
	}
	if got := members.asMap(); len(got) != len(want) {
		t.Fatalf("objectMembers(%q) = %q, want %q", raw, got, want)
	}
	for k, v := range want {
		if got := members.get(k); !bytes.Equal(got, v) {
			t.Fatalf("objectMembers(%q).get(%q) = %q, want %q", raw, k, got, v)
		}
	}
}

var memberSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a" : "x" , "b":[1,{"c":"]}"}],"c":null,"d":true,"e":false}`,
	`{"a":1,"a":2}`, `{"\u0061":"\u00e9\ud800","b\"":"\\","c":"\ud83d\ude00"}`, "{\"k\":\"\xff\"}",
	`{"n":-0.5e+10,"m":0,"o":12345678901234567890}`, `{"x":"é 🙂 \u2028"}`, `[1]`, `"s"`, `1`, `null`, ``, `{`, `{"a":}`,
	`{"a":1}x`, `{"a":{"b":{"c":[[[]]]}}}`, `{"":""}`, "{\"a\":\"\t\"}",
}

func TestObjectMembersMatchEncodingJSON(t *testing.T) {
	for _, s := range memberSeeds {
		sameMembers(t, []byte(s))
	}
}

func FuzzObjectMembers(f *testing.F) {
	for _, s := range memberSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameMembers(t, raw) })
}
