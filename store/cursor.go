package store

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// cursorPrefix versions the portable cursor token format.
const cursorPrefix = "c1."

// maxCursorBytes bounds a decoded cursor (a version vector of about ten
// thousand origins).
const maxCursorBytes = 1 << 20

// MaxCursorLength is the longest cursor token DecodeCursor takes, in
// characters (a token is ASCII): the prefix and the unpadded base64url
// text of maxCursorBytes.
const MaxCursorLength = len(cursorPrefix) + (maxCursorBytes*8+5)/6

// EncodeCursor renders a version vector as a portable cursor token: every
// event it covers (origin_seq <= vv[origin]) counts as already seen, on
// any replica (docs/architecture.md#portable-cursors).
func EncodeCursor(vv map[string]int64) string {
	b, _ := json.Marshal(vv) // a map of strings to ints always encodes
	return cursorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a cursor token.
func DecodeCursor(tok string) (map[string]int64, error) {
	bad := func(why string) error {
		return invalidf("cursor %s is not a valid lsnode cursor (%s)", reprID(truncate(tok, 64)), why)
	}
	rest, ok := strings.CutPrefix(tok, cursorPrefix)
	if !ok {
		return nil, bad("unknown version")
	}
	if base64.RawURLEncoding.DecodedLen(len(rest)) > maxCursorBytes {
		return nil, bad("too long")
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return nil, bad("not base64url")
	}
	var vv map[string]int64
	if err := json.Unmarshal(raw, &vv); err != nil || vv == nil {
		return nil, bad("not a version vector")
	}
	for origin, seq := range vv {
		if !ValidReplicaID(origin) || seq < 0 {
			return nil, bad(fmt.Sprintf("bad entry %q", origin))
		}
	}
	return vv, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// mergeVV returns the entrywise maximum of a and b.
func mergeVV(a, b map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v > out[k] {
			out[k] = v
		}
	}
	return out
}
