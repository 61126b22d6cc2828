//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestFaultCheckerCatches feeds the checker made-up node states with one
// defect each and requires it to report that defect (and nothing on the
// healthy states): a checker that cannot fail proves nothing.
func TestFaultCheckerCatches(t *testing.T) {
	ev := func(origin string, seq int64, hlcMs int64, body string) storedEvent {
		to := "agent-0"
		e := storedEvent{ID: fmt.Sprintf("evt_%s_%d", origin, seq), OriginReplica: origin, OriginSeq: seq,
			HLC: fmt.Sprintf("%d-00000a-%s", hlcMs, origin), FromAgent: "load-0", ToAgent: &to,
			Stream: "fault/c0/m0", Body: body}
		e.canon = e.ID + "|" + e.Body
		return e
	}
	healthy := func(name string) *nodeState {
		return &nodeState{
			t:  checkTarget{Name: name},
			vv: map[string]int64{"A": 2, "B": 1},
			byOrigin: map[string][]storedEvent{
				"A": {ev("A", 1, 100, "fault-req c0-0"), ev("A", 2, 101, "fault-req c0-1")},
				"B": {ev("B", 1, 100, "fault-req c1-0")},
			},
			byID:    map[string]storedEvent{},
			listIDs: []string{"evt_A_1", "evt_A_2", "evt_B_1"},
		}
	}
	records := func() []*appendRecord {
		return []*appendRecord{
			{Token: "c0-0", Outcome: outAcked, ID: "evt_A_1", Origin: "A", OriginSeq: 1, IDs: []string{"evt_A_1"}},
			{Token: "c0-1", Outcome: outUnknown},
			{Token: "c1-0", Outcome: outAcked, ID: "evt_B_1", Origin: "B", OriginSeq: 1, IDs: []string{"evt_B_1"}},
			{Token: "c1-1", Outcome: outFailed, Refusals: []string{"success:false: disk full"}},
		}
	}
	run := func(mutate func(a, b *nodeState, recs []*appendRecord) []*appendRecord) []string {
		a, b := healthy("n0"), healthy("n1")
		recs := mutate(a, b, records())
		r := &checkReport{}
		checkPrefixes(r, a)
		checkPrefixes(r, b)
		checkSame(r, []*nodeState{a, b})
		checkRecords(r, []*nodeState{a, b}, recs)
		return r.Problems
	}
	if p := run(func(_, _ *nodeState, recs []*appendRecord) []*appendRecord { return recs }); len(p) != 0 {
		t.Fatalf("healthy states reported: %q", p)
	}
	cases := []struct {
		name   string
		want   string
		mutate func(a, b *nodeState, recs []*appendRecord) []*appendRecord
	}{
		{"acknowledged event lost", "LOST", func(_, _ *nodeState, recs []*appendRecord) []*appendRecord {
			return append(recs, &appendRecord{Token: "c2-0", Outcome: outAcked, ID: "evt_C_1", Origin: "C", OriginSeq: 1, IDs: []string{"evt_C_1"}})
		}},
		{"refused append stored", "REFUSED", func(_, _ *nodeState, recs []*appendRecord) []*appendRecord {
			recs[1].Outcome, recs[1].Refusals = outFailed, []string{"HTTP 500"}
			return recs
		}},
		{"stored twice", "stored 2 times", func(a, b *nodeState, recs []*appendRecord) []*appendRecord {
			for _, s := range []*nodeState{a, b} {
				s.byOrigin["B"] = append(s.byOrigin["B"], ev("B", 2, 102, "fault-req c0-0"))
				s.vv["B"] = 2
				s.listIDs = append(s.listIDs, "evt_B_2")
			}
			return recs
		}},
		{"hole in an origin", "not a contiguous prefix", func(a, _ *nodeState, recs []*appendRecord) []*appendRecord {
			a.byOrigin["A"][1].OriginSeq = 3
			return recs
		}},
		{"stamp goes back", "HLC went back", func(a, _ *nodeState, recs []*appendRecord) []*appendRecord {
			a.byOrigin["A"][1].HLC = "99-00000f-A"
			return recs
		}},
		{"content differs", "differs", func(_, b *nodeState, recs []*appendRecord) []*appendRecord {
			b.byOrigin["B"][0].canon = "other"
			return recs
		}},
		{"version vectors differ", "version vectors differ", func(_, b *nodeState, recs []*appendRecord) []*appendRecord {
			b.vv["B"] = 5
			return recs
		}},
		{"event sent by nobody", "no client sent", func(a, b *nodeState, recs []*appendRecord) []*appendRecord {
			for _, s := range []*nodeState{a, b} {
				s.byOrigin["B"] = append(s.byOrigin["B"], ev("B", 2, 102, "fault-req ghost"))
				s.vv["B"] = 2
				s.listIDs = append(s.listIDs, "evt_B_2")
			}
			return recs
		}},
		{"cursor repeats an event", "twice", func(a, _ *nodeState, recs []*appendRecord) []*appendRecord {
			a.listIDs = append(a.listIDs, "evt_A_1")
			return recs
		}},
		{"retries answered different ids", "different ids", func(_, _ *nodeState, recs []*appendRecord) []*appendRecord {
			recs[0].IDs = append(recs[0].IDs, "evt_A_2")
			return recs
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := run(tc.mutate)
			if !strings.Contains(strings.Join(p, "\n"), tc.want) {
				t.Errorf("want a problem containing %q, got %q", tc.want, p)
			}
		})
	}
}
