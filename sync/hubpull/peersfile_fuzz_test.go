package hubpull

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// peersMalformedText matches the exception texts of "<path> is malformed:
// <exc>" (the Python hub's): the UTF-8 decoder's, the JSON
// scanner's with its position, the recursion limit, and the KeyError or
// TypeError of data["peers"].
var peersMalformedText = regexp.MustCompile(`^(?:'utf-8' codec can't decode byte.*` +
	`|.*: line \d+ column \d+ \(char \d+\)` +
	`|maximum recursion depth exceeded while decoding a JSON object from a unicode string` +
	`|'peers'` +
	`|list indices must be integers or slices, not str` +
	`|string indices must be integers, not 'str'` +
	`|'(?:NoneType|bool|int|float)' object is not subscriptable)$`)

// peersShapeTexts are the "<path>: <msg>" texts.
var peersShapeTexts = map[string]bool{
	"'peers' must be a list":            true,
	"every peer needs at least a 'url'": true,
	"a peer's 'name' must be a string":  true,
	"a peer's 'token' must be a string": true,
}

// FuzzPeersFile reads any bytes as peers.json: a refusal is an
// ErrPeersFile with one of the documented texts; an accepted file has a
// url for every peer and reads back the same after encoding/json writes
// it; and a file encoding/json reads as a well-typed peers list (plain
// UTF-8, no \u escapes, whose surrogate handling differs) is accepted
// with the same peers.
func FuzzPeersFile(f *testing.F) {
	for _, seed := range []string{
		`{"peers": [{"name": "windows", "url": "https://host.example.ts.net", "token": "s3cret"}]}`,
		`{"peers": [{"url": "http://127.0.0.1:8765/"}, {"url": "http://h:1", "name": null, "token": null}]}`,
		`{"peers": []}`,
		`{"peers": {}}`,
		`{"peers": [{"url": ""}]}`,
		`{"peers": [{"url": 7}]}`,
		`{"peers": [{"url": "u", "name": 1}]}`,
		`{"peers": [{"url": "u", "token": ["x"]}]}`,
		`{"peers": [{"url": "a"}], "peers": [{"url": "b"}]}`,
		`{"peers": [{"url": "\ud83d\ude00\u0000"}]}`,
		`{"peers": [NaN, -Infinity]}`,
		`[1, 2]`,
		`"peers"`,
		`3.5e2`,
		"\xef\xbb\xbf{\"peers\": []}",
		"{\"peers\": [{\"url\": \"x\xff\"}]}",
		"{\r\n  \"peers\": [\r\n  ,]\r\n}",
		strings.Repeat("[", 600),
		``,
	} {
		f.Add([]byte(seed))
	}
	const path = "/data/peers.json"
	f.Fuzz(func(t *testing.T, raw []byte) {
		peers, err := parsePeers(raw)
		if err != nil {
			checkPeersError(t, raw, peersFileError(path, err), path)
			return
		}
		for _, p := range peers {
			if p.URL == "" {
				t.Fatalf("%q: accepted a peer without a url: %#v", raw, p)
			}
		}
		checkPeersRoundTrip(t, peers)
		checkPeersLikeEncodingJSON(t, raw, peers)
	})
}

func checkPeersError(t *testing.T, raw []byte, err error, path string) {
	t.Helper()
	if !errors.Is(err, ErrPeersFile) {
		t.Fatalf("%q: error %v is not ErrPeersFile", raw, err)
	}
	text := err.Error()
	if exc, ok := strings.CutPrefix(text, path+" is malformed: "); ok {
		if !peersMalformedText.MatchString(exc) {
			t.Fatalf("%q: undocumented malformed text %q", raw, exc)
		}
		return
	}
	if msg, ok := strings.CutPrefix(text, path+": "); !ok || !peersShapeTexts[msg] {
		t.Fatalf("%q: undocumented error %q", raw, text)
	}
}

// wirePeer is a peers.json entry as encoding/json reads and writes it.
type wirePeer struct {
	Name  *string `json:"name"`
	URL   string  `json:"url"`
	Token *string `json:"token"`
}

func checkPeersRoundTrip(t *testing.T, peers []Peer) {
	t.Helper()
	out := struct {
		Peers []wirePeer `json:"peers"`
	}{Peers: make([]wirePeer, len(peers))}
	for i, p := range peers {
		out.Peers[i] = wirePeer{Name: &p.Name, URL: p.URL, Token: &p.Token}
	}
	enc, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	again, err := parsePeers(enc)
	if err != nil {
		t.Fatalf("re-encoded %s refused: %v", enc, err)
	}
	if len(again) != len(peers) || (len(peers) > 0 && !reflect.DeepEqual(again, peers)) {
		t.Fatalf("re-encoded %s reads %#v, want %#v", enc, again, peers)
	}
}

func checkPeersLikeEncodingJSON(t *testing.T, raw []byte, peers []Peer) {
	t.Helper()
	if !utf8.Valid(raw) || bytes.Contains(raw, []byte(`\u`)) || bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		return
	}
	var doc map[string]json.RawMessage
	var entries []map[string]any
	if json.Unmarshal(raw, &doc) != nil || json.Unmarshal(doc["peers"], &entries) != nil {
		return
	}
	if len(entries) != len(peers) {
		t.Fatalf("%q: %d peers, encoding/json reads %d", raw, len(peers), len(entries))
	}
	for i, e := range entries {
		want := Peer{}
		want.URL, _ = e["url"].(string)
		want.Name, _ = e["name"].(string)
		want.Token, _ = e["token"].(string)
		if peers[i] != want {
			t.Fatalf("%q: peer %d is %#v, encoding/json reads %#v", raw, i, peers[i], want)
		}
	}
}
