//go:build e2e

package e2e

// The checker's comparison of the coordination views: after healing, every
// node must give the same awaiting answer for every asker (claims and
// claim conflicts included), the same wait-for cycles and the same search
// results, since each view is a function of the op set alone.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// viewQueries are the searches the checker compares: every event of the
// load in HLC order (paged with the cursor), and ranked one- and two-word
// queries over the clients' tokens ("fault-req c3-17" indexes c3 and 17).
var viewQueries = []map[string]any{
	{"query": "fault", "order": "hlc"},
	{"query": "c0"},
	{"query": "fault c1"},
	{"query": "req 7"},
}

// checkViews compares the views of every asker and every search across
// the nodes, each node read in parallel.
func checkViews(r *checkReport, states []*nodeState) {
	// By asker and stream, as the owed sets are compared: the load's
	// streams keep each such answer under the 500 limit.
	pairs := map[[2]string]bool{}
	for _, e := range states[0].byID {
		if e.ToAgent != nil && *e.ToAgent != "*" && *e.ToAgent != "" {
			pairs[[2]string{e.FromAgent, e.Stream}] = true
		}
	}
	keys := slices.SortedFunc(maps.Keys(pairs), func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	for _, k := range keys {
		asks := compareAcross(r, states, fmt.Sprintf("awaiting of %s in %s", k[0], k[1]), func(t checkTarget) ([]string, error) {
			return readAwaiting(t, k[0], k[1])
		})
		for _, a := range asks {
			if strings.Contains(a, `"claimed_by":"`) {
				r.Claimed++
			}
			if strings.Contains(a, `"claim_conflict":true`) {
				r.Conflicts++
			}
		}
	}
	if cycles := compareAcross(r, states, "wait-for cycles", readCycles); len(cycles) > 0 {
		r.Cycles = len(cycles) - 1 // the last line is the truncated flag
	}
	for _, q := range viewQueries {
		compareAcross(r, states, fmt.Sprintf("search %v", q), func(t checkTarget) ([]string, error) {
			return pageIDs(t, "mempalace_event_search", q)
		})
	}
	r.Views = len(keys) + 1 + len(viewQueries)
}

// compareAcross reads one view from every node, reports any node whose
// answer differs from the first node's, and returns the first node's.
func compareAcross(r *checkReport, states []*nodeState, what string, read func(checkTarget) ([]string, error)) []string {
	got := make([][]string, len(states))
	errs := make([]error, len(states))
	var wg sync.WaitGroup
	for i, s := range states {
		wg.Go(func() { got[i], errs[i] = read(s.t) })
	}
	wg.Wait()
	for i, s := range states {
		if errs[i] != nil {
			r.fail("%s: %s: %v", s.t.Name, what, errs[i])
			return nil
		}
		if i > 0 && !slices.Equal(got[0], got[i]) {
			r.fail("%s differs: %s %v, %s %v", what, states[0].t.Name, got[0], s.t.Name, got[i])
		}
	}
	return got[0]
}

// readAwaiting reads every ask agent awaits in stream, each as its canonical JSON
// without the two members that are the reading node's own: the local seq
// and the age at the time of reading.
func readAwaiting(t checkTarget, agent, stream string) ([]string, error) {
	var res struct {
		Asks  []map[string]any `json:"asks"`
		Error string           `json:"error"`
	}
	if err := dkTryToolCall(t.URL, t.Token, "mempalace_event_awaiting", map[string]any{"agent": agent, "stream": stream, "limit": 500}, &res); err != nil {
		return nil, err
	}
	if res.Error != "" {
		return nil, fmt.Errorf("event_awaiting: %s", res.Error)
	}
	if len(res.Asks) == 500 {
		return nil, fmt.Errorf("event_awaiting hit the 500 limit; the comparison would be partial")
	}
	out := make([]string, len(res.Asks))
	for i, a := range res.Asks {
		delete(a, "seq")
		delete(a, "age_s")
		b, err := json.Marshal(a) // map keys sorted
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
}

// readCycles reads GET /lsnode/cycles (every cycle, up to its limit),
// each cycle as its canonical JSON without the oldest asks' ages, which
// depend on the time of reading, then the truncated flag.
func readCycles(t checkTarget) ([]string, error) {
	var res struct {
		Cycles []struct {
			Agents []string         `json:"agents"`
			Edges  []map[string]any `json:"edges"`
		} `json:"cycles"`
		Truncated bool `json:"truncated"`
	}
	if err := faultGetJSON(t.URL, t.Token, "/lsnode/cycles", &res); err != nil {
		return nil, err
	}
	// A truncated answer is compared too: the cycles are ordered by
	// length and agents, and the search's bounds are a function of the
	// graph, so converged nodes truncate alike.
	out := make([]string, len(res.Cycles), len(res.Cycles)+1)
	for i, c := range res.Cycles {
		for _, e := range c.Edges {
			delete(e, "oldest_age_s")
		}
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return append(out, fmt.Sprintf("truncated=%v", res.Truncated)), nil
}
