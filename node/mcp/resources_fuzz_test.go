package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// FuzzResourceURI reads any URI through every resource template: a URI
// of no template is "Resource not found" without running a tool; one of a
// template reads its tool's answer or refusal; and a value put into a
// template by escaping it comes back out of the URI unchanged.
func FuzzResourceURI(f *testing.F) {
	for _, seed := range []string{
		"lsnode://agents/bob/owed", "lsnode://agents//owed", "lsnode://agents/a%2Fb/owed", "lsnode://agents/%zz/owed",
		"lsnode://threads/task_x_1", "lsnode://threads/", "lsnode://events/evt_nope", "lsnode://events/a/b",
		"lsnode://artifacts/art_x", "lsnode://artifacts/%ED%B3%BF", "lsnode://nowhere", "file:///etc/passwd", "",
		"lsnode://agents/%20/owed", "lsnode://threads/%E2%80%A8",
	} {
		f.Add(seed)
	}
	tools, _ := fuzzTools(f, false)
	specs := map[string]*toolSpec{}
	for _, s := range catalog() {
		specs[s.name] = s
	}
	all := resources(specs)
	f.Fuzz(func(t *testing.T, uri string) {
		for _, r := range all {
			res, err := r.read(context.Background(), tools, uri)
			if _, ok := r.variable(uri); !ok {
				if err == nil || !strings.Contains(err.Error(), "Resource not found") {
					t.Fatalf("%s, not of %s: %v %v", uri, r.template.URITemplate, res, err)
				}
				continue
			}
			if (err == nil) == (res == nil) {
				t.Fatalf("%s: result %v and error %v", uri, res, err)
			}
			if err == nil && (len(res.Contents) != 1 || !json.Valid([]byte(res.Contents[0].Text))) {
				t.Fatalf("%s: contents %+v", uri, res.Contents)
			}
			value, _ := r.variable(uri)
			if back, ok := r.variable(r.prefix + url.PathEscape(value) + r.suffix); !ok || back != value {
				t.Fatalf("%q through %s: %q %v", value, r.template.URITemplate, back, ok)
			}
		}
	})
}

// FuzzRequestVersion holds the version a request names in its _meta to
// a decode of the same params (the SDK's reading).
func FuzzRequestVersion(f *testing.F) {
	for _, seed := range []string{
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}`,
		`{"_meta":[]}`, `{"_meta":null}`, `[]`, `null`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"a\u0000"},"_meta":{}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x","io.modelcontextprotocol/protocolVersion":"y"}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x","n":[1e400]}}`, `{"_META":{"io.modelcontextprotocol/protocolVersion":"\u0078"}}`, `{"_META":{"io.modelcontextprotocol/protocolVersion":"x"}}`,
		`{"_meta":null,"_Meta":{"io.modelcontextprotocol/protocolVersion":"x"}}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"},"_meta":null}`,
		`{"name":"t","arguments":{"n":1e400},"_m\u0065ta":{"io.modelcontextprotocol/protocolVersion":"x"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return
		}
		if got, want := metaVersion(params), sdkMetaVersion(params); got != want {
			t.Fatalf("%s: version %q, the SDK's decode reads %q", params, got, want)
		}
	})
}
