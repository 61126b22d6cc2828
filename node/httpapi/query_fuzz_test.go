package httpapi

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// queryErrorTexts are the 400 texts of the /sync/ops and /logstream/*
// parameter checks (docs/compatibility.md#sync-routes), as prefixes.
var queryErrorTexts = []string{
	"invalid literal for int() with base 10: ",
	"after_seq must be a non-negative integer",
	"limit must be a positive integer",
	"wait_ms must be a non-negative integer",
	// /logstream/events is lsnode's own route: its integers and order.
	"limit must be an integer, got ", "wait_ms must be an integer, got ",
	"wait_ms waits for newer events: it takes order=asc", "order=",
	"origin must be a non-empty string", "origin exceeds maximum length of ", "origin contains control characters",
	"from_agent must be a non-empty string", "from_agent exceeds maximum length of ", "from_agent contains control characters",
}

// FuzzSyncQuery reads any query string as the /sync/ops and
// /logstream/events routes do: parseQuery keeps only non-blank UTF-8
// values and reads back what url.QueryEscape wrote; where Go's own parser
// accepts the string, both agree; the routes either refuse with one of
// their documented 400 texts or get bounded, valid parameters.
func FuzzSyncQuery(f *testing.F) {
	for _, seed := range []string{
		"origin=rep_0123456789ab&after=0&limit=500",
		"origin=rep_0123456789ab&after=-1",
		"origin=&after=abc",
		"origin=%20x%20&limit=0",
		"origin=a&limit=99999999999999999999999",
		"origin=a&after=1_000&limit=+5",
		"origin=%zz&after=%31",
		"origin=a;after=3",
		"origin=a&origin=&origin=b",
		"stream=s&from_agent=%01&wait_ms=10",
		"cursor=c1.e30&wait_ms=-5&limit=1__0",
		"since_event_id=evt_x&wait_ms=99999999999",
		"a+b=c+d&%E2%82%AC=%FF",
		"&&=&x",
	} {
		f.Add(seed)
	}
	const maxWait = 300 * time.Second
	f.Fuzz(func(t *testing.T, raw string) {
		q := parseQuery(raw)
		checkQueryValues(t, raw, q)
		req, err := opsRequest(q)
		switch {
		case err != nil:
			checkQueryError(t, raw, err)
		case req.Origin == "" || req.After < 0 || req.Limit < 1 || req.Limit > rules.MaxListLimit:
			t.Fatalf("%q: /sync/ops got origin %q after %d limit %d", raw, req.Origin, req.After, req.Limit)
		}
		f, wait, err := eventsRequest(q, maxWait)
		switch {
		case err != nil:
			checkQueryError(t, raw, err)
		case f.Limit < 1 || f.Limit > rules.MaxListLimit || wait > maxWait || wait < -1:
			t.Fatalf("%q: /logstream/events got limit %d wait %v", raw, f.Limit, wait)
		}
	})
}

func checkQueryValues(t *testing.T, raw string, q query) {
	t.Helper()
	for k, v := range q {
		if v == "" || !utf8.ValidString(k) || !utf8.ValidString(v) {
			t.Fatalf("%q: parsed %q=%q", raw, k, v)
		}
	}
	// What a client escapes is read back as it was.
	var enc []string
	for k, v := range q {
		enc = append(enc, url.QueryEscape(k)+"="+url.QueryEscape(v))
	}
	again := parseQuery(strings.Join(enc, "&"))
	if len(again) != len(q) {
		t.Fatalf("%q: re-encoded %v reads back as %v", raw, q, again)
	}
	for k, v := range q {
		if again[k] != v {
			t.Fatalf("%q: %q=%q reads back as %q", raw, k, v, again[k])
		}
	}
	// Where Go's parser accepts the string (no ';', valid escapes, UTF-8
	// throughout), the last non-blank value of each key is the same.
	goq, err := url.ParseQuery(raw)
	if err != nil || strings.Contains(raw, ";") {
		return
	}
	want := map[string]string{}
	for k, vs := range goq {
		for _, v := range vs {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return
			}
			if v != "" {
				want[k] = v
			}
		}
	}
	if len(want) != len(q) {
		t.Fatalf("%q: parsed %v, net/url reads %v", raw, q, want)
	}
	for k, v := range want {
		if q[k] != v {
			t.Fatalf("%q: %q is %q, net/url reads %q", raw, k, q[k], v)
		}
	}
}

func checkQueryError(t *testing.T, raw string, err error) {
	t.Helper()
	var ve *store.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("%q: refusal %v is not a 400", raw, err)
	}
	if !slices.ContainsFunc(queryErrorTexts, func(p string) bool { return strings.HasPrefix(ve.Msg, p) }) {
		t.Fatalf("%q: undocumented refusal %q", raw, ve.Msg)
	}
}
