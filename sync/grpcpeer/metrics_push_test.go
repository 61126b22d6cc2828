package grpcpeer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/prometheus/client_golang/prometheus"
)

// After a catch-up both ends push to each other, the per-origin lag of the
// peer's origin is exported at 0 and the queues have drained.
func TestGRPC_PushAndOriginLagGauges(t *testing.T) {
	a, b := startNode(t, "c1", 0), startNode(t, "c1", 0)
	for i := range 50 {
		b.append(t, fmt.Sprintf("b%d", i))
	}
	if err := a.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, time.Minute, "catch-up", sameVectors(a, b))
	origin := b.st.ReplicaID()
	testwait.Until(t, 10*time.Second, "gauges of a following session", func() bool {
		o := a.rep.Origins()
		return gaugeValue(t, a.reg, "lsnode_sync_push_streams", "") == 1 &&
			gaugeValue(t, b.reg, "lsnode_sync_push_streams", "") == 1 &&
			len(o) == 1 && o[0].Origin == origin && o[0].Held == 50 && o[0].Target == 50 &&
			gaugeValue(t, a.reg, "lsnode_sync_origin_lag_ops", origin) == 0 &&
			gaugeValue(t, a.reg, "lsnode_sync_origin_lag_seconds", origin) == 0
	})
	if q := gaugeValue(t, a.reg, "lsnode_sync_push_queue_depth", ""); q != 0 {
		t.Errorf("push queue depth when idle = %v", q)
	}
	if q := gaugeValue(t, b.reg, "lsnode_sync_send_queue_bytes", ""); q == -1 {
		t.Error("lsnode_sync_send_queue_bytes is not exported")
	}
}

// gaugeValue reads gauge name (with origin label value origin, or none)
// from reg; -1 when absent.
func gaugeValue(t *testing.T, reg *prometheus.Registry, name, origin string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if origin == "" || (len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == origin) {
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}
