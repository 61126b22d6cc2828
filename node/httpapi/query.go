package httpapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pyhttp"
	"github.com/lsnode/lsnode/internal/pyhub/pynum"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// query is a request's query string read the way the Python hub reads it
// (pyhttp.ParseQSL): blank values dropped, the last value of a repeated
// key wins.
type query map[string]string

func parseQuery(raw string) query { return query(pyhttp.ParseQSL(raw)) }

// streamFilter reads the filters of /logstream/stream and
// /logstream/events. from_agent filters on the writer, as the Python SSE
// route does (and is refused under its own name); writer is accepted as
// its newer spelling and wins.
func (q query) streamFilter() (store.Filter, error) {
	f := store.Filter{
		Stream:        q["stream"],
		Room:          q["room"],
		Topic:         q["topic"],
		Type:          q["type"],
		ToAgent:       q["to_agent"],
		Writer:        q["writer"],
		CorrelationID: q["correlation_id"],
		Status:        q["status"],
		Order:         "asc",
	}
	if f.Writer == "" && q["from_agent"] != "" {
		w, err := rules.Routing(q["from_agent"], "from_agent", false)
		if err != nil {
			return f, invalid(err.Error())
		}
		f.Writer = w
	}
	return f, nil
}

// intParam reads an integer parameter as Python's int() does
// (pynum.Int64), with def when absent.
func (q query) intParam(key string, def int64) (int64, error) {
	v, ok := q[key]
	if !ok {
		return def, nil
	}
	n, err := pynum.Int64(v)
	if err != nil {
		return 0, invalid(err.Error())
	}
	return n, nil
}

// onlyParams refuses a query string naming a parameter not in known, for
// lsnode's own routes (route.own): a misspelt filter would otherwise
// widen the answer silently. Blank pairs are ignored; a key with a blank
// value still counts.
func onlyParams(raw string, known []string) error {
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, _, _ := strings.Cut(pair, "=")
		if k = pyhttp.UnquotePlus(k); !slices.Contains(known, k) {
			if len(known) == 0 {
				return invalid(fmt.Sprintf("unknown query parameter %s: this route takes none", rules.Repr(k)))
			}
			return invalid(fmt.Sprintf("unknown query parameter %s: this route takes %s", rules.Repr(k),
				strings.Join(slices.Sorted(slices.Values(known)), ", ")))
		}
	}
	return nil
}

// wholeParam reads an integer parameter of lsnode's own routes: decimal
// digits with an optional sign, def when absent. Unlike intParam it does
// not answer with Python's int() error text, which means nothing to a
// client of a route the hub does not have.
func (q query) wholeParam(key string, def int64) (int64, error) {
	v, ok := q[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, invalid(fmt.Sprintf("%s must be an integer, got %s", key, rules.Repr(v)))
	}
	return n, nil
}
