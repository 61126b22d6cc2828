package hubpull

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// PeersFileName is the name of the HTTP peers file in a data dir, as in
// the Python hub's palace dir.
const PeersFileName = "peers.json"

// Peer is one entry of peers.json: a hub (Python mempalace, or any
// node serving /sync/*) this node pulls from over HTTP.
//
// The token is a secret: String, GoString, Format, LogValue and
// MarshalJSON never show it, and neither does anything else in this
// package (statuses, results, errors, logs, metrics). Do not copy an
// Peer into an unexported struct field that is printed with %v: fmt
// cannot call methods on unexported fields.
type Peer struct {
	// Name labels the peer in statuses, logs and metrics; "" means the
	// URL (as in the Python hub).
	Name string
	// URL is the peer's base URL, e.g. "https://host.example.ts.net";
	// trailing slashes are ignored.
	URL string
	// Token is sent as "Authorization: Bearer <token>" when not "".
	Token string
}

// Label is the peer's name, or its URL (password redacted) when unnamed.
func (p Peer) Label() string {
	if p.Name != "" {
		return p.Name
	}
	return RedactURL(p.URL)
}

// String shows the label and the URL, never the token.
func (p Peer) String() string {
	if p.Name == "" {
		return RedactURL(p.URL)
	}
	return p.Name + " (" + RedactURL(p.URL) + ")"
}

// GoString is String, so %#v does not print the token either.
func (p Peer) GoString() string { return "Peer(" + p.String() + ")" }

// Format prints String for every verb.
func (p Peer) Format(f fmt.State, verb rune) {
	_, _ = fmt.Fprint(f, p.String())
}

// LogValue logs the name, the URL and whether a token is set.
func (p Peer) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("name", p.Label()),
		slog.String("url", RedactURL(p.URL)),
		slog.Bool("token_set", p.Token != ""),
	)
}

// MarshalJSON writes {"name", "url"} without the token.
func (p Peer) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	}{p.Name, RedactURL(p.URL)})
}

// RedactURL hides the password of a URL's userinfo ("xxxxx"), which is a
// credential as much as a token is. Unparsable text is returned as is.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// LoadPeersFile reads a peers.json in the Python hub's format:
//
//	{"peers": [{"name": "windows", "url": "https://host.example.ts.net", "token": "…"}]}
//
// An absent file means no peers. Errors wrap ErrPeersFile and carry the
// Python hub's texts:
//
//   - bad JSON or no "peers" key: "<path> is malformed: <exc>", where
//     <exc> is what Python's UTF-8 decoder or json.loads would say
//   - "peers" not a list: "<path>: 'peers' must be a list"
//   - an entry that is not an object or has no (or an empty) url:
//     "<path>: every peer needs at least a 'url'"
//
// lsnode is stricter than Python in two ways, both refused at load rather
// than failing later in every round: a url that is not a string counts as
// missing, and a name or token that is neither a string nor null is
// refused ("<path>: a peer's 'name' must be a string").
func LoadPeersFile(path string) ([]Peer, error) {
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%w: read %s: %w", ErrPeersFile, path, err)
	}
	peers, err := parsePeers(raw)
	if err != nil {
		return nil, peersFileError(path, err)
	}
	return peers, nil
}

// peersShapeError is a structural problem of the file, reported as
// "<path>: <msg>"; anything else is reported as "<path> is malformed: <exc>".
type peersShapeError struct{ msg string }

func (e *peersShapeError) Error() string { return e.msg }

func peersFileError(path string, err error) error {
	var shape *peersShapeError
	if errors.As(err, &shape) {
		return &peersFileErr{path + ": " + shape.msg}
	}
	return &peersFileErr{path + " is malformed: " + err.Error()}
}

// peersFileErr reads exactly like the Python hub's error and matches
// ErrPeersFile.
type peersFileErr struct{ text string }

func (e *peersFileErr) Error() string        { return e.text }
func (e *peersFileErr) Is(target error) bool { return target == ErrPeersFile }

func parsePeers(raw []byte) ([]Peer, error) {
	data, err := pyjson.Loads(raw)
	if err != nil {
		return nil, err
	}
	list, err := peersKey(data)
	if err != nil {
		return nil, err
	}
	entries, ok := list.([]any)
	if !ok {
		return nil, &peersShapeError{"'peers' must be a list"}
	}
	peers := make([]Peer, 0, len(entries))
	for _, e := range entries {
		p, err := peerEntry(e)
		if err != nil {
			return nil, err
		}
		peers = append(peers, p)
	}
	return peers, nil
}

// peersKey is data["peers"], failing with the text of the KeyError or
// TypeError Python raises.
func peersKey(data any) (any, error) {
	switch d := data.(type) {
	case map[string]any:
		v, ok := d["peers"]
		if !ok {
			return nil, errors.New("'peers'")
		}
		return v, nil
	case []any:
		return nil, errors.New("list indices must be integers or slices, not str")
	case string:
		return nil, errors.New("string indices must be integers, not 'str'")
	}
	return nil, fmt.Errorf("'%s' object is not subscriptable", pyrepr.TypeName(data))
}

func peerEntry(e any) (Peer, error) {
	obj, ok := e.(map[string]any)
	if !ok {
		return Peer{}, &peersShapeError{"every peer needs at least a 'url'"}
	}
	u, ok := obj["url"].(string)
	if !ok || u == "" {
		return Peer{}, &peersShapeError{"every peer needs at least a 'url'"}
	}
	p := Peer{URL: u}
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &p.Name}, {"token", &p.Token}} {
		switch v := obj[f.key].(type) {
		case nil:
		case string:
			*f.dst = v
		default:
			return Peer{}, &peersShapeError{fmt.Sprintf("a peer's '%s' must be a string", f.key)}
		}
	}
	return p, nil
}
