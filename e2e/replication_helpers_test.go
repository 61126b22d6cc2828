//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// Helpers of the replication and membership suites: MCP calls, the sync
// routes and the member table, each returning errors (they run in
// goroutines and in polls) rather than failing the test.

// rpClient bounds a request of these suites that is not addressed to one
// node's HTTP surface through rpDo (which uses the node's own client,
// trusting its CA): a node that stops answering must not hang a poll.
var rpClient = &http.Client{Timeout: requestTimeout}

// rpDo sends one request to node p with its token and decodes a 200's
// JSON body into v. p's client bounds it (requestTimeout): a node that
// stops answering (killed, frozen, cut off) must not hang a poll.
func rpDo(p *lsnodeProc, method, path string, body []byte, v any) error {
	req, err := http.NewRequest(method, p.URL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
	}
	if p.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.Token)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s %s: %v in %s", method, path, err, raw)
	}
	return nil
}

// rpTool calls one MCP tool with a bare JSON-RPC tools/call and decodes
// the JSON text of its result into out.
func rpTool(p *lsnodeProc, name string, args map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	var rpc struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := rpDo(p, "POST", "/mcp", body, &rpc); err != nil {
		return err
	}
	if rpc.Error != nil {
		return fmt.Errorf("%s: %s", name, rpc.Error.Message)
	}
	if len(rpc.Result.Content) == 0 || rpc.Result.IsError {
		return fmt.Errorf("%s: error result %+v", name, rpc.Result)
	}
	return json.Unmarshal([]byte(rpc.Result.Content[0].Text), out)
}

// rpAppend appends one note by agent and returns the event id the node
// acknowledged.
func rpAppend(p *lsnodeProc, agent, body string) (string, error) {
	var out struct {
		Success bool
		Event   struct{ ID string }
	}
	err := rpTool(p, "mempalace_event_append", map[string]any{"type": "note", "stream": "e2e", "room": "replication",
		"from_agent": agent, "body": body}, &out)
	if err == nil && (!out.Success || out.Event.ID == "") {
		err = fmt.Errorf("append: not acknowledged: %+v", out)
	}
	return out.Event.ID, err
}

// rpMustAppend appends n notes on p (sequentially) and returns their ids.
func rpMustAppend(t *testing.T, p *lsnodeProc, agent string, n int) []string {
	t.Helper()
	var ids []string
	for i := 0; i < n; i++ {
		id, err := rpAppend(p, agent, fmt.Sprintf("%s #%d", agent, i))
		if err != nil {
			t.Fatalf("append on %s: %v", p.URL, err)
		}
		ids = append(ids, id)
	}
	return ids
}

// rpVector is p's /sync/version_vector.
func rpVector(p *lsnodeProc) (map[string]int64, error) {
	var out struct {
		VersionVector map[string]int64 `json:"version_vector"`
	}
	err := rpDo(p, "GET", "/sync/version_vector", nil, &out)
	return out.VersionVector, err
}

// rpOpIDs is every event id p serves on /sync/ops, across the origins of
// its version vector.
func rpOpIDs(p *lsnodeProc) (map[string]bool, error) {
	vv, err := rpVector(p)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for origin := range vv {
		var after int64
		for {
			var page struct {
				Events []struct {
					ID        string `json:"id"`
					OriginSeq int64  `json:"origin_seq"`
				}
			}
			q := "/sync/ops?origin=" + url.QueryEscape(origin) + fmt.Sprintf("&after=%d&limit=500", after)
			if err := rpDo(p, "GET", q, nil, &page); err != nil {
				return nil, err
			}
			if len(page.Events) == 0 {
				break
			}
			for _, ev := range page.Events {
				ids[ev.ID] = true
				after = ev.OriginSeq
			}
		}
	}
	return ids, nil
}

// rpListIDs is every event id p lists through mempalace_event_list,
// paged with its cursor.
func rpListIDs(p *lsnodeProc) (map[string]bool, error) {
	ids := map[string]bool{}
	args := map[string]any{"limit": 500, "order": "asc", "preview": true}
	for {
		var page struct {
			Events []struct{ ID string }
			Cursor string
		}
		if err := rpTool(p, "mempalace_event_list", args, &page); err != nil {
			return nil, err
		}
		for _, ev := range page.Events {
			ids[ev.ID] = true
		}
		if len(page.Events) == 0 || page.Cursor == "" {
			return ids, nil
		}
		args["cursor"] = page.Cursor
	}
}

// rpMissing lists the ids of want that have is lacking, sorted, at most
// five of them (for messages) and how many in all.
func rpMissing(want []string, have map[string]bool) ([]string, int) {
	var miss []string
	for _, id := range want {
		if !have[id] {
			miss = append(miss, id)
		}
	}
	sort.Strings(miss)
	return miss[:min(5, len(miss))], len(miss)
}

// rpConverged polls until every node has the same version vector and
// serves every id of want on /sync/ops; then it checks the ids once more
// through mempalace_event_list. It fails the test with what differs.
func rpConverged(t *testing.T, within time.Duration, want []string, nodes ...*lsnodeProc) {
	t.Helper()
	testwait.For(t, within, func() (bool, string) {
		diff := rpDiff(want, nodes)
		return diff == "", "not converged: " + diff
	})
	for _, p := range nodes {
		ids, err := rpListIDs(p)
		if err != nil {
			t.Fatalf("event_list on %s: %v", p.URL, err)
		}
		if miss, n := rpMissing(want, ids); n > 0 {
			t.Fatalf("%s: event_list lacks %d acknowledged events, e.g. %v", p.URL, n, miss)
		}
	}
}

// rpDiff says how the nodes differ ("" when they agree and hold want).
func rpDiff(want []string, nodes []*lsnodeProc) string {
	var first map[string]int64
	for i, p := range nodes {
		vv, err := rpVector(p)
		if err != nil {
			return err.Error()
		}
		if i == 0 {
			first = vv
		} else if !maps.Equal(first, vv) {
			return fmt.Sprintf("version vectors differ: %s has %v, %s has %v", nodes[0].URL, first, p.URL, vv)
		}
	}
	for _, p := range nodes {
		ids, err := rpOpIDs(p)
		if err != nil {
			return err.Error()
		}
		if miss, n := rpMissing(want, ids); n > 0 {
			return fmt.Sprintf("%s lacks %d acknowledged events, e.g. %v", p.URL, n, miss)
		}
	}
	return ""
}

// rpMember is one row of the lsnode member table (/sync/peers "lsnode",
// and `lsnode peers --json`).
type rpMember struct {
	Name       string   `json:"name"`
	ReplicaID  string   `json:"replica_id"`
	GossipAddr string   `json:"gossip_addr"`
	GRPCAddr   string   `json:"grpc_addr"`
	HTTPAddr   string   `json:"http_addr"`
	State      string   `json:"state"`
	Self       bool     `json:"self"`
	LagOps     *int64   `json:"lag_ops"`
	LastSync   *string  `json:"last_sync"`
	ClockMS    *float64 `json:"clock_offset_ms"`
	Version    string   `json:"version"`
	Reason     string   `json:"reason"`
}

// rpMembers is p's member table from /sync/peers.
func rpMembers(p *lsnodeProc) ([]rpMember, error) {
	var out struct {
		Lsnode *struct {
			Members []rpMember `json:"members"`
		} `json:"lsnode"`
	}
	if err := rpDo(p, "GET", "/sync/peers", nil, &out); err != nil {
		return nil, err
	}
	if out.Lsnode == nil {
		return nil, fmt.Errorf("%s: /sync/peers has no lsnode member table", p.URL)
	}
	return out.Lsnode.Members, nil
}

// rpStates maps member name to state as p sees it.
func rpStates(p *lsnodeProc) (map[string]string, error) {
	ms, err := rpMembers(p)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range ms {
		out[m.Name] = m.State
	}
	return out, nil
}

// rpCLIMembers runs `lsnode peers --json` against p.
func rpCLIMembers(t *testing.T, p *lsnodeProc) []rpMember {
	t.Helper()
	code, out, errOut := p.CLI("peers", "--json")
	if code != 0 {
		t.Fatalf("lsnode peers --json: exit %d\n%s%s", code, out, errOut)
	}
	var body struct {
		Members []rpMember `json:"members"`
	}
	if err := json.Unmarshal([]byte(out), &body); err != nil {
		t.Fatalf("lsnode peers --json: %v\n%s", err, out)
	}
	return body.Members
}

// rpWaitStates polls until every observer sees every named member in the
// given state (a missing row counts as "absent").
func rpWaitStates(t *testing.T, within time.Duration, observers []*lsnodeProc, want map[string]string) {
	t.Helper()
	testwait.For(t, within, func() (bool, string) {
		for _, o := range observers {
			st, err := rpStates(o)
			if err != nil {
				return false, "member states: " + err.Error()
			}
			for name, state := range want {
				got, ok := st[name]
				if !ok {
					got = "absent"
				}
				if got != state {
					return false, fmt.Sprintf("member states: %s sees %s %s, want %s (all: %v)", o.URL, name, got, state, st)
				}
			}
		}
		return true, ""
	})
}

// rpAll is want with every name in state.
func rpAll(state string, names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = state
	}
	return out
}

// rpConcurrentAppends runs perNode appends on each node from workers
// goroutines per node at once and returns every acknowledged id. Any
// failed append fails the test (after all goroutines ended).
func rpConcurrentAppends(t *testing.T, nodes []*lsnodeProc, perNode, workers int) []string {
	t.Helper()
	var (
		mu   sync.Mutex
		ids  []string
		errs []string
		wg   sync.WaitGroup
	)
	for ni, p := range nodes {
		for w := 0; w < workers; w++ {
			n := perNode / workers
			if w < perNode%workers {
				n++
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				agent := fmt.Sprintf("agent-n%d-w%d", ni, w)
				for i := 0; i < n; i++ {
					id, err := rpAppend(p, agent, fmt.Sprintf("%s #%d", agent, i))
					mu.Lock()
					if err != nil {
						errs = append(errs, err.Error())
					} else {
						ids = append(ids, id)
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d appends failed, e.g. %s", len(errs), errs[0])
	}
	if uniq := len(slices.Compact(slices.Sorted(slices.Values(ids)))); uniq != len(ids) {
		t.Fatalf("%d acknowledged ids, %d distinct", len(ids), uniq)
	}
	return ids
}

// rpLogsContain polls until p's log holds every one of subs.
func rpLogsContain(t *testing.T, within time.Duration, p *lsnodeProc, subs ...string) {
	t.Helper()
	testwait.Until(t, within, fmt.Sprintf("%s log to show %q", p.URL, subs), func() bool {
		logs := p.Logs()
		for _, s := range subs {
			if !strings.Contains(logs, s) {
				return false
			}
		}
		return true
	})
}
