package httpapi

import (
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
