package auth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

func TestParseTokens_Refusals(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"not JSON", `{"tokens": [`, "invalid JSON"},
		{"trailing data", `{"tokens": []} {}`, "unexpected data after the JSON object"},
		{"no tokens key", `{}`, `missing "tokens"`},
		{"unknown top-level field", `{"tokens": [], "extra": 1}`, `unknown field "extra"`},
		{"unknown entry field", `{"tokens": [{"token": "a", "writes_as": ["x"]}]}`, `unknown field "writes_as"`},
		{"unknown read field", `{"tokens": [{"token": "a", "read": {"mailbox": true, "stream": ["x"]}}]}`, `unknown field "stream"`},
		{"unknown read word", `{"tokens": [{"token": "a", "read": "everything"}]}`, `read "everything": want "all", "mailbox", "none" or an object`},
		{"empty token", `{"tokens": [{"token": "a"}, {"token": "", "name": "ci"}]}`, `tokens[1] ("ci"): empty token`},
		{"missing token", `{"tokens": [{"name": "ci"}]}`, `tokens[0] ("ci"): empty token`},
		{"space in token", `{"tokens": [{"token": "a b"}]}`, `tokens[0]: the token must be printable ASCII without spaces`},
		{"duplicate token", `{"tokens": [{"token": "a", "name": "x"}, {"token": "a", "name": "y"}]}`, `tokens[1] ("y"): same token as tokens[0] ("x")`},
		{"duplicate name", `{"tokens": [{"token": "a", "name": "x"}, {"token": "b", "name": "x"}]}`, `tokens[1] ("x"): same name as tokens[0]`},
		{"bad write_as pattern", `{"tokens": [{"token": "a", "write_as": ["ok", "ci-["]}]}`, `tokens[0]: write_as[1] "ci-[": syntax error in pattern`},
		{"empty write_as pattern", `{"tokens": [{"token": "a", "write_as": [" "]}]}`, `tokens[0]: write_as[0] is empty`},
		{"bad stream pattern", `{"tokens": [{"token": "a", "read": {"streams": ["[a-"]}}]}`, `read.streams[0] "[a-": syntax error in pattern`},
		{"bad agents pattern", `{"tokens": [{"token": "a", "read": {"agents": ["\\"]}}]}`, `read.agents[0]`},
		{"admin with scope", `{"tokens": [{"token": "a", "admin": true, "read": "all"}]}`, `an admin token may do everything`},
		{"wrong type", `{"tokens": [{"token": 5}]}`, "invalid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tbl, err := ParseTokens([]byte(tc.file))
			if err == nil {
				t.Fatalf("accepted (%d tokens)", tbl.Len())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q lacks %q", err, tc.want)
			}
			if strings.Contains(err.Error(), `"a"`) && tc.name != "duplicate token" {
				t.Fatalf("error %q may quote a token", err)
			}
		})
	}
}

// The error never contains a token, even a long distinctive one.
func TestParseTokens_ErrorsNeverQuoteTokens(t *testing.T) {
	const secret = "very-distinctive-secret-value"
	for _, file := range []string{
		`{"tokens": [{"token": "` + secret + `"}, {"token": "` + secret + `"}]}`,
		`{"tokens": [{"token": "` + secret + `", "write_as": ["["]}]}`,
		`{"tokens": [{"token": "` + secret + `", "bogus": 1}]}`,
	} {
		_, err := ParseTokens([]byte(file))
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Fatalf("error %v", err)
		}
	}
}

func TestParseTokens_Scopes(t *testing.T) {
	tbl, err := ParseTokens([]byte(`{"tokens": [
		{"token": "t-default", "write_as": ["pi@laptop"]},
		{"token": "t-mailbox", "write_as": ["ci-*"], "read": "mailbox"},
		{"token": "t-all", "read": "all"},
		{"token": "t-none", "write_as": ["w"], "read": "none"},
		{"token": "t-mixed", "write_as": ["me"], "read": {"mailbox": true, "agents": ["team-*"], "streams": ["project/*"]}},
		{"token": "t-streams", "read": {"streams": ["ops"]}},
		{"token": "t-admin", "name": "ops", "admin": true}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		token string
		want  *store.ReadScope
	}{
		{"t-default", &store.ReadScope{Agents: []string{"pi@laptop"}, Broadcasts: true, Streams: []string{}}},
		{"t-mailbox", &store.ReadScope{Agents: []string{"ci-*"}, Broadcasts: true, Streams: []string{}}},
		{"t-all", nil},
		{"t-none", &store.ReadScope{}},
		{"t-mixed", &store.ReadScope{Agents: []string{"team-*", "me"}, Broadcasts: true, Streams: []string{"project/*"}}},
		{"t-streams", &store.ReadScope{Streams: []string{"ops"}}},
		{"t-admin", nil},
	}
	for _, tc := range cases {
		id := tbl.lookup(tc.token)
		if id == nil {
			t.Fatalf("%s: not found", tc.token)
		}
		got := id.ReadScope()
		if (got == nil) != (tc.want == nil) || (got != nil && !sameScope(*got, *tc.want)) {
			t.Errorf("%s: scope %+v, want %+v", tc.token, got, tc.want)
		}
	}
	if tbl.lookup("t-admi") != nil || tbl.lookup("") != nil || tbl.lookup("t-admin ") != nil {
		t.Fatal("a near miss matched")
	}
	if !tbl.lookup("t-admin").MayWriteAs("anyone") || tbl.lookup("t-all").MayWriteAs("anyone") {
		t.Fatal("admin writes as anyone; a read-all token without write_as writes as nobody")
	}
	mb := tbl.lookup("t-mailbox")
	for name, want := range map[string]bool{"ci-7": true, "ci-": true, "ci": false, "ci-a/b": false, "xci-1": false} {
		if mb.MayWriteAs(name) != want {
			t.Errorf("ci-* may write as %q: %v, want %v", name, !want, want)
		}
	}
}

func sameScope(a, b store.ReadScope) bool {
	norm := func(s []string) []string {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	return reflect.DeepEqual(norm(a.Agents), norm(b.Agents)) && a.Broadcasts == b.Broadcasts &&
		reflect.DeepEqual(norm(a.Streams), norm(b.Streams))
}

func TestLoadTokens_NamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	if _, err := LoadTokens(path); err == nil || !strings.Contains(err.Error(), "tokens file") {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"tokens": [{}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTokens(path); err == nil || !strings.Contains(err.Error(), path+": tokens[0]: empty token") {
		t.Fatalf("bad file: %v", err)
	}
}

// FuzzParseTokens: any input is either refused with an error or gives a
// table in which every entry's token finds its own identity, which may
// write as each of its exact write_as names, and whose patterns are all
// valid. Seeds: testdata/fuzz/FuzzParseTokens and the cases below.
func FuzzParseTokens(f *testing.F) {
	f.Add([]byte(nodetest.TokensFile))
	f.Add([]byte(`{"tokens": []}`))
	f.Add([]byte(`{"tokens": [{"token": "a", "read": {"mailbox": true, "agents": ["x-*"], "streams": ["p/*"]}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tbl, err := ParseTokens(b)
		if err != nil {
			if tbl != nil {
				t.Fatal("a table with an error")
			}
			return
		}
		var raw tokensFile
		if err := json.Unmarshal(b, &raw); err != nil || raw.Tokens == nil || len(*raw.Tokens) != tbl.Len() {
			t.Fatalf("accepted input does not decode to the same entries: %v", err)
		}
		for _, e := range *raw.Tokens {
			id := tbl.lookup(e.Token)
			if id == nil || id.name != e.Name {
				t.Fatalf("entry %q: its token does not find it", e.Name)
			}
			for _, w := range e.WriteAs {
				if !id.MayWriteAs(w) {
					t.Fatalf("entry %q may not write as its own write_as %q", e.Name, w)
				}
			}
		}
		for _, g := range tbl.grants {
			if g.id == nil {
				t.Fatal("grant without identity")
			}
			for _, p := range g.id.writeAs {
				if p == "" {
					t.Fatal("empty write_as pattern accepted")
				}
			}
			if sc := g.id.ReadScope(); sc != nil {
				for _, p := range append(append([]string(nil), sc.Agents...), sc.Streams...) {
					if !validPattern(p) {
						t.Fatalf("invalid pattern %q accepted", p)
					}
				}
			}
		}
	})
}

func validPattern(p string) bool {
	return checkPatterns("p", []string{p}) == nil
}
