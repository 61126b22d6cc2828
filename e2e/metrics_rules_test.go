//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lsnode/lsnode/internal/promrules"
	"github.com/lsnode/lsnode/internal/testwait"
)

// An alert can only fire on a series that exists: a counter born at its
// first increment shows no increase(), and a selector that matches no
// series is silent forever. TestMetrics_RuleSeriesFromStart holds a real
// node's /metrics to every lsnode_* selector of
// deploy/prometheus/rules.yml, before the first write and after it.

// rulesFile is the alert rules the deployments load.
const rulesFile = "../deploy/prometheus/rules.yml"

// ruleSelector is one lsnode_* selector of an alert's expression.
type ruleSelector struct {
	alert string
	sel   promrules.Selector
}

func ruleSelectors(t *testing.T) []ruleSelector {
	t.Helper()
	f, err := promrules.Load(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []ruleSelector
	for _, r := range f.Alerts() {
		for _, s := range promrules.Selectors(r.Expr, "lsnode_") {
			out = append(out, ruleSelector{alert: r.Alert, sel: s})
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s names no lsnode_* metric", rulesFile)
	}
	return out
}

// series is one sample line of /metrics: its name and labels.
type series struct {
	name   string
	labels map[string]string
}

// scrapeSeries reads every series of p's /metrics, a histogram's
// _bucket, _sum and _count series included.
func scrapeSeries(p *lsnodeProc) ([]series, error) {
	req, err := http.NewRequest(http.MethodGet, p.URL+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	if p.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.Token)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, err
	}
	var out []series
	for name, mf := range families {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if mf.GetType() != dto.MetricType_HISTOGRAM {
				out = append(out, series{name, labels})
				continue
			}
			out = append(out, series{name + "_sum", labels}, series{name + "_count", labels})
			for _, b := range m.GetHistogram().GetBucket() {
				bl := map[string]string{"le": fmt.Sprint(b.GetUpperBound())}
				for k, v := range labels {
					bl[k] = v
				}
				out = append(out, series{name + "_bucket", bl})
			}
		}
	}
	return out, nil
}

// unmatched lists the selectors that no series of p's /metrics matches,
// except those of the names in exempt.
func unmatched(p *lsnodeProc, sels []ruleSelector, exempt map[string]string) ([]string, error) {
	all, err := scrapeSeries(p)
	if err != nil {
		return nil, err
	}
	var miss []string
	for _, rs := range sels {
		if _, ok := exempt[rs.sel.Name]; ok {
			continue
		}
		found := false
		for _, s := range all {
			if s.name == rs.sel.Name && rs.sel.Matches(s.labels) {
				found = true
				break
			}
		}
		if !found {
			miss = append(miss, fmt.Sprintf("%s (alert %s)", rs.sel, rs.alert))
		}
	}
	sort.Strings(miss)
	return miss, nil
}

// requireRuleSeries polls p's /metrics until every selector of sels but
// the exempt ones matches a series, and fails naming those that never do.
func requireRuleSeries(t *testing.T, p *lsnodeProc, sels []ruleSelector, exempt map[string]string, when string) {
	t.Helper()
	testwait.For(t, mbStateLimit, func() (bool, string) {
		miss, err := unmatched(p, sels, exempt)
		if err != nil {
			return false, fmt.Sprintf("%s: %v", when, err)
		}
		return len(miss) == 0, fmt.Sprintf("%s: %s/metrics has no series for %d selector(s) of %s:\n  %s",
			when, p.URL, len(miss), rulesFile, strings.Join(miss, "\n  "))
	})
}

// TestMetrics_RuleSeriesFromStart: two nodes replicate and gossip with
// each other. Before anything is written, node r0 serves a series for
// every selector of the alert rules but the per-origin ones (an origin
// has series once it has written); after r1's first event reached r0, for
// every selector without exception.
func TestMetrics_RuleSeriesFromStart(t *testing.T) {
	lsnodeBin(t)
	sels := ruleSelectors(t)
	a := mbStart(t, "r0", mbOptions{})
	b := mbStart(t, "r1", mbOptions{join: a.gossip})
	rpWaitStates(t, mbStateLimit, mbProcs(a, b), rpAll("alive", "r0", "r1"))

	requireRuleSeries(t, a.p, sels, map[string]string{
		"lsnode_sync_origin_lag_seconds": "one series per origin, and no origin has written yet",
	}, "before the first write")

	ids := rpMustAppend(t, b.p, "agent-b", 1)
	rpConverged(t, mbStateLimit, ids, a.p, b.p)
	requireRuleSeries(t, a.p, sels, nil, "after r1's first event reached r0")
}
