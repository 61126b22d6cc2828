package promrules

import (
	"reflect"
	"testing"
)

func TestSelectors(t *testing.T) {
	expr := `sum without (state) (lsnode_membership_members{state=~"suspect|dead"}) > 0
  unless on (job, instance)
  sum by (job, instance) (increase(lsnode_sync_ops_total{result="applied", path!="x"}[10m])) > 0
  or histogram_quantile(0.99, rate(lsnode_store_apply_delay_seconds_bucket[5m])) > 10
  or up{job="lsnode"} == 0`
	want := []Selector{
		{Name: "lsnode_membership_members", Matchers: []Matcher{{"state", "=~", "suspect|dead"}}},
		{Name: "lsnode_sync_ops_total", Matchers: []Matcher{{"result", "=", "applied"}, {"path", "!=", "x"}}},
		{Name: "lsnode_store_apply_delay_seconds_bucket"},
	}
	if got := Selectors(expr, "lsnode_"); !reflect.DeepEqual(got, want) {
		t.Fatalf("Selectors:\n got %+v\nwant %+v", got, want)
	}
	if got := want[1].String(); got != `lsnode_sync_ops_total{result="applied", path!="x"}` {
		t.Errorf("String() = %s", got)
	}
}

func TestSelector_Matches(t *testing.T) {
	s := Selector{Name: "m", Matchers: []Matcher{{"state", "=~", "suspect|dead"}, {"job", "!=", "other"}, {"path", "!~", "p.*"}}}
	for _, tc := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{"state": "dead"}, true},
		{map[string]string{"state": "suspect", "job": "lsnode", "path": "x"}, true},
		{map[string]string{"state": "alive"}, false},
		{map[string]string{"state": "deadish"}, false}, // anchored
		{map[string]string{"state": "dead", "job": "other"}, false},
		{map[string]string{"state": "dead", "path": "pull"}, false},
		{map[string]string{}, false},
	} {
		if got := s.Matches(tc.labels); got != tc.want {
			t.Errorf("Matches(%v) = %v, want %v", tc.labels, got, tc.want)
		}
	}
	if !(Selector{Name: "m"}).Matches(nil) {
		t.Error("a selector without matchers selects every series")
	}
}
