//go:build e2e

package e2e

// The checker of the fault tests: after the faults are healed and the
// cluster is quiet, it reads every node's log (per origin through
// /sync/ops, in delivery order through event_list's cursor), owed sets,
// quarantine, members and metrics, and compares them with each other and
// with what the load's clients were told.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// checkTarget is one node as the checker reaches it.
type checkTarget struct {
	Name, URL, Token string
	// CLI runs `lsnode <args>` against the node (nil: not checked).
	CLI func(args ...string) (string, error)
}

// storedEvent is one event as a node serves it.
type storedEvent struct {
	ID            string          `json:"id"`
	OriginReplica string          `json:"origin_replica"`
	OriginSeq     int64           `json:"origin_seq"`
	HLC           string          `json:"hlc"`
	FromAgent     string          `json:"from_agent"`
	ToAgent       *string         `json:"to_agent"`
	Stream        string          `json:"stream"`
	Body          string          `json:"body"`
	Metadata      json.RawMessage `json:"metadata"`
	canon         string          // the whole event but seq, re-encoded with sorted keys
}

// nodeState is everything the checker read from one node.
type nodeState struct {
	t        checkTarget
	replica  string
	vv       map[string]int64
	byOrigin map[string][]storedEvent
	byID     map[string]storedEvent
	listIDs  []string // event_list with its cursor, in delivery order
	owed     map[string][]string
	quarant  int64
	members  map[string]faultMember
	metrics  map[string]float64 // "name{labels}" -> value
}

// checkReport is the checker's result.
type checkReport struct {
	Problems      []string
	Events        int // events on every node
	Origins       int
	Acked         int
	Failed        int
	Unknown       int
	UnknownStored int // unknowns found stored (they committed)
	Lost          int
	Dup           int
	Retried       int // keyed requests that needed more than one attempt
	DupAnswers    int // attempts answered duplicate:true
	OwedSets      int
	Views         int // awaiting answers and searches compared across the nodes
	Claimed       int // awaited asks with a claim, on the first node
	Conflicts     int // of them, in claim conflict
	Cycles        int // wait-for cycles, on the first node
}

func (r *checkReport) fail(format string, a ...any) {
	if len(r.Problems) < 200 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, a...))
	} else if len(r.Problems) == 200 {
		r.Problems = append(r.Problems, "... more problems left out")
	}
}

// settleFor is how long the nodes' common version vector must stay the
// same before waitConverged calls them converged: a write a node accepted
// before the load stopped can still commit after it (a node finishes
// every write it queued, answered or not), and the checker must not read
// the nodes in between.
const settleFor = time.Second

// waitConverged polls until every node holds the same version vector,
// reports lag 0 for every other, and the vector has not moved for
// settleFor, or within passes; it returns how long it took and the last
// difference seen.
func waitConverged(targets []checkTarget, within time.Duration) (time.Duration, string) {
	start := time.Now()
	var settled map[string]int64 // the common vector, and since when
	var settledAt time.Time
	ok, last := testwait.Poll(within, func() (bool, string) {
		var first map[string]int64
		for i, t := range targets {
			var vv struct {
				VV map[string]int64 `json:"version_vector"`
			}
			if err := faultGetJSON(t.URL, t.Token, "/sync/version_vector", &vv); err != nil {
				return false, fmt.Sprintf("%s: %v", t.Name, err)
			}
			if i == 0 {
				first = vv.VV
			} else if !maps.Equal(first, vv.VV) {
				return false, fmt.Sprintf("%s vv %v != %s vv %v", targets[0].Name, first, t.Name, vv.VV)
			}
			m, err := faultMembers(t.URL, t.Token)
			if err != nil {
				return false, fmt.Sprintf("%s members: %v", t.Name, err)
			}
			for _, o := range targets {
				row, ok := m[o.Name]
				if !ok || row.State != "alive" || (!row.Self && (row.LagOps == nil || *row.LagOps != 0)) {
					return false, fmt.Sprintf("%s sees %s: %+v", t.Name, o.Name, row)
				}
			}
		}
		if !maps.Equal(settled, first) {
			settled, settledAt = first, time.Now()
		}
		return time.Since(settledAt) >= settleFor, fmt.Sprintf("common vector %v, not yet settled for %v", first, settleFor)
	})
	if !ok {
		return time.Since(start), last
	}
	return time.Since(start), ""
}

// readNode reads everything the checker compares from one node.
func readNode(t checkTarget, origins []string) (*nodeState, error) {
	s := &nodeState{t: t, byOrigin: map[string][]storedEvent{}, byID: map[string]storedEvent{}, owed: map[string][]string{}}
	var vv struct {
		ReplicaID string           `json:"replica_id"`
		VV        map[string]int64 `json:"version_vector"`
	}
	if err := faultGetJSON(t.URL, t.Token, "/sync/version_vector", &vv); err != nil {
		return nil, err
	}
	s.replica, s.vv = vv.ReplicaID, vv.VV
	all := slices.Clone(origins)
	for o := range s.vv {
		if !slices.Contains(all, o) {
			all = append(all, o)
		}
	}
	for _, o := range all {
		evs, err := readOrigin(t, o)
		if err != nil {
			return nil, err
		}
		s.byOrigin[o] = evs
	}
	ids, err := readList(t)
	if err != nil {
		return nil, err
	}
	s.listIDs = ids
	var st struct {
		Log struct {
			Quarantined int64 `json:"quarantined"`
		} `json:"log"`
	}
	if err := faultGetJSON(t.URL, t.Token, "/statusz", &st); err != nil {
		return nil, err
	}
	s.quarant = st.Log.Quarantined
	if s.members, err = faultMembers(t.URL, t.Token); err != nil {
		return nil, err
	}
	if s.metrics, err = readMetrics(t); err != nil {
		return nil, err
	}
	return s, nil
}

// readOrigin pages /sync/ops of one origin from the start.
func readOrigin(t checkTarget, origin string) ([]storedEvent, error) {
	var out []storedEvent
	after := int64(0)
	for {
		var page struct {
			Events []json.RawMessage `json:"events"`
		}
		q := fmt.Sprintf("/sync/ops?origin=%s&after=%d&limit=500", origin, after)
		if err := faultGetJSON(t.URL, t.Token, q, &page); err != nil {
			return nil, err
		}
		if len(page.Events) == 0 {
			return out, nil
		}
		for _, raw := range page.Events {
			e, err := decodeStored(raw)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
			after = e.OriginSeq
		}
	}
}

// decodeStored decodes an event and keeps its canonical form (without the
// local seq) for byte-for-byte comparison between nodes.
func decodeStored(raw json.RawMessage) (storedEvent, error) {
	var e storedEvent
	if err := json.Unmarshal(raw, &e); err != nil {
		return e, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return e, err
	}
	delete(m, "seq")
	b, _ := json.Marshal(m) // map keys sorted
	e.canon = string(b)
	return e, nil
}

// readList pages mempalace_event_list oldest first with its portable
// cursor until a page comes back empty.
func readList(t checkTarget) ([]string, error) {
	return pageIDs(t, "mempalace_event_list", map[string]any{"order": "asc"})
}

// pageIDs calls tool with args and the cursor of each answer until a page
// comes back empty, and returns the ids of its events in order.
func pageIDs(t checkTarget, tool string, args map[string]any) ([]string, error) {
	var ids []string
	args = maps.Clone(args)
	args["limit"] = 500
	for page := 0; page < 100000; page++ {
		var res struct {
			Events []struct {
				ID string `json:"id"`
			} `json:"events"`
			Cursor string `json:"cursor"`
			Error  string `json:"error"`
		}
		if err := dkTryToolCall(t.URL, t.Token, tool, args, &res); err != nil {
			return nil, err
		}
		if res.Error != "" {
			return nil, fmt.Errorf("%s: %s", tool, res.Error)
		}
		if len(res.Events) == 0 {
			return ids, nil
		}
		for _, e := range res.Events {
			ids = append(ids, e.ID)
		}
		if res.Cursor == "" {
			return nil, fmt.Errorf("%s: a page of %d events without a cursor", tool, len(res.Events))
		}
		args["cursor"] = res.Cursor
	}
	return nil, fmt.Errorf("%s: no end after 100000 pages", tool)
}

// readOwed reads mempalace_event_owed for agent in stream.
func readOwed(t checkTarget, agent, stream string) ([]string, error) {
	var res struct {
		Events []struct {
			ID string `json:"id"`
		} `json:"events"`
		Error string `json:"error"`
	}
	args := map[string]any{"agent": agent, "stream": stream, "limit": 500}
	if err := dkTryToolCall(t.URL, t.Token, "mempalace_event_owed", args, &res); err != nil {
		return nil, err
	}
	if res.Error != "" {
		return nil, fmt.Errorf("event_owed: %s", res.Error)
	}
	ids := make([]string, 0, len(res.Events))
	for _, e := range res.Events {
		ids = append(ids, e.ID)
	}
	return ids, nil
}

// readMetrics scrapes /metrics into "name{labels}" -> value.
func readMetrics(t checkTarget) (map[string]float64, error) {
	req, err := http.NewRequest(http.MethodGet, t.URL+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	if t.Token != "" {
		req.Header.Set("Authorization", "Bearer "+t.Token)
	}
	resp, err := faultHTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err == nil {
			out[line[:i]] = v
		}
	}
	return out, sc.Err()
}

// metricSum adds every series of name whose labels contain all of with.
func metricSum(m map[string]float64, name string, with ...string) float64 {
	var sum float64
	for k, v := range m {
		if k != name && !strings.HasPrefix(k, name+"{") {
			continue
		}
		ok := true
		for _, w := range with {
			ok = ok && strings.Contains(k, w)
		}
		if ok {
			sum += v
		}
	}
	return sum
}

// readAttempts bounds how often checkCluster reads the nodes again
// because a vector moved while it read them.
const readAttempts = 3

// checkCluster reads every node and checks the invariants against each
// other and against the load's records. A write can still commit while
// it reads, even after waitConverged: a request a client gave up on
// during an isolation is delivered by TCP's retransmission once the
// isolation heals. So a reading is kept only when every node's version
// vector after it is the one read; otherwise the nodes are let converge
// again (within converge) and read anew, up to readAttempts times.
func checkCluster(targets []checkTarget, records []*appendRecord, converge time.Duration) *checkReport {
	r := &checkReport{}
	var states []*nodeState
	var origins []string
	for attempt := 1; ; attempt++ {
		var err error
		if states, origins, err = readCluster(targets); err != nil {
			r.fail("%v", err)
			return r
		}
		moved := vectorsMoved(states)
		if moved == "" {
			break
		}
		if attempt == readAttempts {
			r.fail("the version vectors kept moving while the checker read the nodes (%d readings): %s", attempt, moved)
			break
		}
		if _, diff := waitConverged(targets, converge); diff != "" {
			r.fail("not converged again after %s moved during a reading: %s", moved, diff)
			return r
		}
	}
	for _, s := range states {
		checkPrefixes(r, s)
	}
	checkSame(r, states)
	checkRecords(r, states, records)
	checkOwed(r, states)
	checkViews(r, states)
	checkAcksClose(r, states, records)
	checkHealth(r, states)
	r.Origins = len(origins)
	return r
}

// readCluster reads every node, and returns the origins any of them
// holds.
func readCluster(targets []checkTarget) ([]*nodeState, []string, error) {
	var states []*nodeState
	var origins []string
	for _, t := range targets {
		s, err := readNode(t, origins)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", t.Name, err)
		}
		for o := range s.vv {
			if !slices.Contains(origins, o) {
				origins = append(origins, o)
			}
		}
		states = append(states, s)
	}
	return states, origins, nil
}

// vectorsMoved reads each node's version vector again and names the
// first node whose vector is no longer the one its reading holds; "" when
// none moved (or one cannot be read: the reading's checks say more).
func vectorsMoved(states []*nodeState) string {
	for _, s := range states {
		var vv struct {
			VV map[string]int64 `json:"version_vector"`
		}
		if err := faultGetJSON(s.t.URL, s.t.Token, "/sync/version_vector", &vv); err != nil {
			continue
		}
		if !maps.Equal(vv.VV, s.vv) {
			return fmt.Sprintf("%s (read %v, now %v)", s.t.Name, s.vv, vv.VV)
		}
	}
	return ""
}

// checkPrefixes: per origin, origin_seq runs 1..vv[origin] with no hole
// and no repeat (invariants 1 and 2), HLC strictly increasing (6), and
// each event id held once.
func checkPrefixes(r *checkReport, s *nodeState) {
	for o, evs := range s.byOrigin {
		if int64(len(evs)) != s.vv[o] {
			r.fail("%s: origin %s holds %d ops but its version vector says %d", s.t.Name, o, len(evs), s.vv[o])
		}
		var prev string
		for i, e := range evs {
			if e.OriginSeq != int64(i+1) {
				r.fail("%s: origin %s op %d has origin_seq %d (hole or repeat: not a contiguous prefix)", s.t.Name, o, i+1, e.OriginSeq)
				break
			}
			if e.OriginReplica != o {
				r.fail("%s: /sync/ops of %s served an op of %s", s.t.Name, o, e.OriginReplica)
			}
			if i > 0 && !hlcLess(prev, e.HLC) {
				r.fail("%s: origin %s op %d stamp %s is not after op %d's %s (HLC went back)", s.t.Name, o, e.OriginSeq, e.HLC, e.OriginSeq-1, prev)
			}
			prev = e.HLC
			if _, dup := s.byID[e.ID]; dup {
				r.fail("%s: event id %s held twice", s.t.Name, e.ID)
			}
			s.byID[e.ID] = e
		}
	}
	seen := map[string]bool{}
	for _, id := range s.listIDs {
		if seen[id] {
			r.fail("%s: event_list paged with its cursor returned %s twice", s.t.Name, id)
		}
		seen[id] = true
		if _, ok := s.byID[id]; !ok {
			r.fail("%s: event_list returned %s, which /sync/ops does not hold", s.t.Name, id)
		}
	}
	if len(seen) != len(s.byID) {
		r.fail("%s: event_list paged with its cursor returned %d events, /sync/ops holds %d", s.t.Name, len(seen), len(s.byID))
	}
}

// hlcLess compares two stamps "<wall ms>-<counter>-<replica>".
func hlcLess(a, b string) bool {
	pa, pb := strings.SplitN(a, "-", 3), strings.SplitN(b, "-", 3)
	if len(pa) < 2 || len(pb) < 2 {
		return a < b
	}
	wa, _ := strconv.ParseInt(pa[0], 10, 64)
	wb, _ := strconv.ParseInt(pb[0], 10, 64)
	if wa != wb {
		return wa < wb
	}
	ca, _ := strconv.ParseInt(pa[1], 16, 64)
	cb, _ := strconv.ParseInt(pb[1], 16, 64)
	return ca < cb
}

// checkSame: every node holds the same version vector and the same events
// byte for byte (invariant 7).
func checkSame(r *checkReport, states []*nodeState) {
	ref := states[0]
	r.Events = len(ref.byID)
	for _, s := range states[1:] {
		if !maps.Equal(ref.vv, s.vv) {
			r.fail("version vectors differ: %s %v, %s %v", ref.t.Name, ref.vv, s.t.Name, s.vv)
		}
		for id, e := range ref.byID {
			o, ok := s.byID[id]
			switch {
			case !ok:
				r.fail("%s holds %s (%s/%d), %s does not", ref.t.Name, id, e.OriginReplica, e.OriginSeq, s.t.Name)
			case o.canon != e.canon:
				r.fail("event %s differs: %s has %s, %s has %s", id, ref.t.Name, e.canon, s.t.Name, o.canon)
			}
		}
		for id := range s.byID {
			if _, ok := ref.byID[id]; !ok {
				r.fail("%s holds %s, %s does not", s.t.Name, id, ref.t.Name)
			}
		}
	}
}

// checkRecords compares what clients were told with what every node holds:
// acknowledged present exactly once everywhere, refused nowhere, unknown
// at most once, nothing stored that no client sent, keyed retries stored
// once.
func checkRecords(r *checkReport, states []*nodeState, records []*appendRecord) {
	byToken := map[string]*appendRecord{}
	for _, rec := range records {
		byToken[rec.Token] = rec
	}
	for _, s := range states {
		count := map[string][]string{}
		for _, e := range s.byID {
			tok, ok := strings.CutPrefix(e.Body, "fault-req ")
			if !ok {
				continue
			}
			count[tok] = append(count[tok], e.ID)
			if byToken[tok] == nil {
				r.fail("%s holds %s with body %q, which no client sent", s.t.Name, e.ID, e.Body)
			}
		}
		for _, rec := range records {
			ids := count[rec.Token]
			if len(ids) > 1 {
				r.fail("%s: request %s (%s, key %q, %d attempts) stored %d times: %v", s.t.Name, rec.Token, rec.Kind, rec.IdemKey, rec.Attempts, len(ids), ids)
				if s == states[0] {
					r.Dup += len(ids) - 1
				}
			}
			switch rec.Outcome {
			case outAcked:
				e, ok := s.byID[rec.ID]
				if !ok {
					r.fail("%s: LOST acknowledged event %s (request %s via f%d, %s/%d)", s.t.Name, rec.ID, rec.Token, rec.Node, rec.Origin, rec.OriginSeq)
					if s == states[0] {
						r.Lost++
					}
					continue
				}
				if e.OriginReplica != rec.Origin || e.OriginSeq != rec.OriginSeq {
					r.fail("%s: event %s stored as %s/%d, acknowledged as %s/%d", s.t.Name, rec.ID, e.OriginReplica, e.OriginSeq, rec.Origin, rec.OriginSeq)
				}
			case outFailed:
				if len(ids) > 0 {
					r.fail("%s: request %s was REFUSED (%v) but is stored as %v", s.t.Name, rec.Token, rec.Refusals, ids)
				}
			}
		}
	}
	stored := map[string]bool{}
	for _, e := range states[0].byID {
		if tok, ok := strings.CutPrefix(e.Body, "fault-req "); ok {
			stored[tok] = true
		}
	}
	for _, rec := range records {
		for _, id := range rec.IDs {
			if id != rec.IDs[0] {
				r.fail("request %s (key %q): attempts were acknowledged with different ids %v", rec.Token, rec.IdemKey, rec.IDs)
				break
			}
		}
		switch rec.Outcome {
		case outAcked:
			r.Acked++
		case outFailed:
			r.Failed++
		default:
			r.Unknown++
			if stored[rec.Token] {
				r.UnknownStored++
			}
		}
		if rec.IdemKey != "" && rec.Attempts > 1 {
			r.Retried++
		}
		r.DupAnswers += rec.Duplicate
	}
}

// checkOwed: the owed set of every (agent, stream) pair is the same list
// on every node.
func checkOwed(r *checkReport, states []*nodeState) {
	pairs := map[[2]string]bool{}
	for _, e := range states[0].byID {
		if e.ToAgent != nil && *e.ToAgent != "*" && *e.ToAgent != "" {
			pairs[[2]string{*e.ToAgent, e.Stream}] = true
		}
	}
	keys := slices.Collect(maps.Keys(pairs))
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		// The nodes answer in parallel; the comparison stays in order.
		got := make([][]string, len(states))
		errs := make([]error, len(states))
		var wg sync.WaitGroup
		for i, s := range states {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = readOwed(s.t, k[0], k[1])
			}()
		}
		wg.Wait()
		var ref []string
		for i, s := range states {
			ids, err := got[i], errs[i]
			if err != nil {
				r.fail("%s: owed %s in %s: %v", s.t.Name, k[0], k[1], err)
				return
			}
			if len(ids) == 500 {
				r.fail("%s: owed %s in %s hit the 500 limit; the comparison is partial", s.t.Name, k[0], k[1])
			}
			s.owed[k[0]+"\x00"+k[1]] = ids
			if i == 0 {
				ref = ids
			} else if !slices.Equal(ref, ids) {
				r.fail("owed set of %s in %s differs: %s %v, %s %v", k[0], k[1], states[0].t.Name, ref, s.t.Name, ids)
			}
		}
		r.OwedSets++
	}
}

// checkHealth: quarantine empty, every member alive with lag 0 (in
// /sync/peers and in `lsnode peers --json`), metrics consistent.
func checkHealth(r *checkReport, states []*nodeState) {
	for _, s := range states {
		if s.quarant != 0 {
			r.fail("%s: /statusz reports %d quarantined items", s.t.Name, s.quarant)
		}
		if q := metricSum(s.metrics, "lsnode_store_quarantined_total"); q != 0 {
			r.fail("%s: lsnode_store_quarantined_total = %v", s.t.Name, q)
		}
		for _, o := range states {
			row, ok := s.members[o.t.Name]
			if !ok || row.State != "alive" {
				r.fail("%s: member %s is %+v, want alive", s.t.Name, o.t.Name, row)
			}
			if o == s {
				continue
			}
			if row.LagOps == nil || *row.LagOps != 0 {
				r.fail("%s: member %s lag_ops %v, want 0", s.t.Name, o.t.Name, row.LagOps)
			}
			lag, ok := s.metrics[`lsnode_sync_peer_lag_ops{peer="`+o.replica+`"}`]
			if !ok || lag != 0 {
				r.fail("%s: lsnode_sync_peer_lag_ops{peer=%s} = %v (present %v), want 0", s.t.Name, o.t.Name, lag, ok)
			}
		}
		if n := metricSum(s.metrics, "lsnode_store_origins"); int(n) != len(s.vv) {
			r.fail("%s: lsnode_store_origins = %v, version vector has %d origins", s.t.Name, n, len(s.vv))
		}
		// Remote ops applied since this process started cannot exceed
		// the remote ops held, and the store and sync counters agree.
		var remote int64
		for o, n := range s.vv {
			if o != s.replica {
				remote += n
			}
		}
		storeApplied := metricSum(s.metrics, "lsnode_store_remote_ops_total", `outcome="applied"`)
		syncApplied := metricSum(s.metrics, "lsnode_sync_ops_total", `result="applied"`)
		if storeApplied > float64(remote) {
			r.fail("%s: lsnode_store_remote_ops_total{applied} = %v > %d remote ops held", s.t.Name, storeApplied, remote)
		}
		if storeApplied != syncApplied {
			r.fail("%s: lsnode_store_remote_ops_total{applied} = %v but lsnode_sync_ops_total{applied} = %v", s.t.Name, storeApplied, syncApplied)
		}
		if s.t.CLI != nil {
			checkPeersCLI(r, s, states)
		}
	}
}

// checkPeersCLI runs `lsnode peers --json` against the node.
func checkPeersCLI(r *checkReport, s *nodeState, states []*nodeState) {
	out, err := s.t.CLI("peers", "--json")
	if err != nil {
		r.fail("%s: lsnode peers --json: %v: %s", s.t.Name, err, out)
		return
	}
	var res struct {
		Members []faultMember `json:"members"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		r.fail("%s: lsnode peers --json: %v: %.300s", s.t.Name, err, out)
		return
	}
	if len(res.Members) != len(states) {
		r.fail("%s: lsnode peers lists %d members, want %d", s.t.Name, len(res.Members), len(states))
	}
	for _, m := range res.Members {
		if m.State != "alive" {
			r.fail("%s: lsnode peers: %s is %s", s.t.Name, m.Name, m.State)
		}
		if !m.Self && (m.LagOps == nil || *m.LagOps != 0) {
			r.fail("%s: lsnode peers: %s lag %v", s.t.Name, m.Name, m.LagOps)
		}
	}
}

// cliRunner returns a CLI function for checkTarget: the binary run with
// --addr set to url (and the token in the environment).
func cliRunner(bin, url, token string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(args, "--addr", url)...)
		cmd.Env = cleanEnv()
		if token != "" {
			cmd.Env = append(cmd.Env, "LSNODE_TOKEN="+token)
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err != nil {
			return out.String() + errb.String(), err
		}
		return out.String(), nil
	}
}

// checkAcksClose checks owed-ness against what must hold whatever the
// nodes agree on: a request stays owed by its addressee only until an ack
// that saw it. An ack naming it (ack_of) always saw it; an ack joining it
// by correlation id saw it when written on the node that had acknowledged
// the request before (a client acks only acknowledged requests). Such a
// request must be owed on no node.
func checkAcksClose(r *checkReport, states []*nodeState, records []*appendRecord) {
	for _, rec := range records {
		if rec.AckOf == "" || rec.Claim || rec.Outcome != outAcked || (rec.AckCorr != "" && rec.AckNode != rec.Node) {
			continue
		}
		e, ok := states[0].byID[rec.AckOf]
		if !ok || e.ToAgent == nil {
			continue // reported as lost already
		}
		for _, s := range states {
			if slices.Contains(s.owed[*e.ToAgent+"\x00"+e.Stream], e.ID) {
				how := "ack_of"
				if rec.AckCorr != "" {
					how = "correlation id, written on the node that acknowledged it"
				}
				r.fail("%s: %s is still owed by %s although %s acked it (%s as %s)", s.t.Name, e.ID, *e.ToAgent, rec.ID, how, rec.Token)
				break
			}
		}
	}
}
