package httpapi

import (
	"net/http"
	"sort"
	"strconv"
	"time"
)

// recentQuarantine is how many quarantined items the mesh page lists.
const recentQuarantine = 20

// meshMember is one member row of the mesh page.
type meshMember struct {
	Name          string   `json:"name"`
	ReplicaID     string   `json:"replica_id"`
	State         string   `json:"state"`
	Self          bool     `json:"self"`
	Reason        string   `json:"reason,omitempty"`
	GossipAddr    string   `json:"gossip_addr"`
	GRPCAddr      string   `json:"grpc_addr"`
	HTTPAddr      string   `json:"http_addr"`
	Version       string   `json:"version"`
	Synced        bool     `json:"synced"`
	LagOps        int64    `json:"lag_ops"`
	LagSeconds    *float64 `json:"lag_seconds"`
	ClockOffsetMS float64  `json:"clock_offset_ms"`
	LastSync      string   `json:"last_sync,omitempty"`
}

// meshOrigin is one origin's catch-up (OriginProgress with JSON names).
type meshOrigin struct {
	Origin        string  `json:"origin"`
	Held          int64   `json:"held"`
	Target        int64   `json:"target"`
	BehindOps     int64   `json:"behind_ops"`
	BehindSeconds float64 `json:"behind_seconds"`
	OpsPerSecond  float64 `json:"ops_per_second"`
}

// meshQuarantined is one quarantined item.
type meshQuarantined struct {
	ReceivedAt string `json:"received_at"`
	Origin     string `json:"origin"`
	OriginSeq  int64  `json:"origin_seq"`
	ItemID     string `json:"item_id"`
	Reason     string `json:"reason"`
	Detail     string `json:"detail"`
}

type meshCheck struct {
	Name      string `json:"name"`
	Value     int64  `json:"value"`
	Threshold int64  `json:"threshold"`
	OK        bool   `json:"ok"`
}

// meshPage is GET /ui/api/mesh's answer.
type meshPage struct {
	NowMS      int64        `json:"now"`
	Self       string       `json:"self"`
	Members    []meshMember `json:"members"`
	Origins    []meshOrigin `json:"origins"`
	Quarantine struct {
		Total    int64             `json:"total"`
		ByReason map[string]int64  `json:"by_reason"`
		Recent   []meshQuarantined `json:"recent"`
	} `json:"quarantine"`
	Ready   bool        `json:"ready"`
	Checks  []meshCheck `json:"checks"`
	History struct {
		StepS   float64     `json:"step_s"`
		WindowS float64     `json:"window_s"`
		Samples []lagSample `json:"samples"`
	} `json:"history"`
}

// handleMesh answers GET /ui/api/mesh?since=MS (admin): the members as
// `lsnode peers` shows them (the /sync/peers estate), the origins'
// catch-up, quarantine counts by reason and the newest items, the
// readiness checks at the configured thresholds, and the lag samples
// after since (all of the window without it).
func (c *console) handleMesh(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	var since int64
	if v := r.URL.Query().Get("since"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			writeConsoleError(w, http.StatusBadRequest, "since must be a time in Unix milliseconds")
			return
		}
		since = n
	}
	ctx := r.Context()
	var out meshPage
	out.Self = c.store.ReplicaID()
	if est := c.s.roster(ctx).Lsnode; est != nil {
		for _, m := range est.Members {
			out.Members = append(out.Members, memberOf(m))
		}
	} else {
		out.Members = []meshMember{{Name: c.s.name, ReplicaID: out.Self, State: "alive", Self: true, Version: c.s.cfg.Version}}
	}
	out.Origins = []meshOrigin{}
	if c.s.cfg.Replication != nil {
		for _, o := range c.s.cfg.Replication.CatchUp() {
			out.Origins = append(out.Origins, meshOrigin(o))
		}
	}
	sort.Slice(out.Origins, func(i, j int) bool { return out.Origins[i].Origin < out.Origins[j].Origin })
	var err error
	if out.Quarantine.ByReason, err = c.store.QuarantineReasons(ctx); err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	for _, n := range out.Quarantine.ByReason {
		out.Quarantine.Total += n
	}
	recent, err := c.store.Quarantine(ctx, recentQuarantine)
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	out.Quarantine.Recent = []meshQuarantined{}
	for _, q := range recent {
		out.Quarantine.Recent = append(out.Quarantine.Recent, meshQuarantined{ReceivedAt: q.ReceivedAt, Origin: q.OriginReplica,
			OriginSeq: q.OriginSeq, ItemID: q.ItemID, Reason: q.Reason, Detail: q.Detail})
	}
	checks, err := c.s.readyChecks(ctx, c.s.cfg.Readiness)
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	out.Ready = len(failedChecks(checks)) == 0
	for _, ch := range checks {
		out.Checks = append(out.Checks, meshCheck{Name: ch.name, Value: ch.value, Threshold: ch.threshold, OK: ch.ok()})
	}
	out.History.StepS, out.History.WindowS = lagHistoryStep.Seconds(), lagHistoryWindow.Seconds()
	out.History.Samples = c.history.observe(func(atMS int64) lagSample { return sampleOf(atMS, out) }, since)
	out.NowMS = c.s.wall.Now().UnixMilli()
	writeConsoleJSON(w, http.StatusOK, out)
}

func memberOf(m MemberRow) meshMember {
	out := meshMember{Name: m.Name, ReplicaID: m.ReplicaID, State: m.State, Self: m.Self, Reason: m.Reason,
		GossipAddr: m.GossipAddr, GRPCAddr: m.GRPCAddr, HTTPAddr: m.HTTPAddr, Version: m.Version, Synced: m.Synced}
	if m.Synced && !m.Self {
		out.LagOps, out.ClockOffsetMS = m.LagOps, float64(m.ClockOffset.Microseconds())/1000
		if m.LagKnown {
			s := m.LagSeconds
			out.LagSeconds = &s
		}
	}
	if !m.Self && !m.LastSync.IsZero() {
		out.LastSync = m.LastSync.UTC().Format(time.RFC3339)
	}
	return out
}

// sampleOf is the lag of the page's connected peers and of its origins.
func sampleOf(atMS int64, p meshPage) lagSample {
	s := lagSample{AtMS: atMS, Peers: map[string]lagPoint{}, Origins: map[string]lagPoint{}}
	for _, m := range p.Members {
		if m.Synced && !m.Self && m.State == "alive" {
			s.Peers[m.Name] = lagPoint{Ops: m.LagOps, Seconds: m.LagSeconds}
		}
	}
	for _, o := range p.Origins {
		sec := o.BehindSeconds
		s.Origins[o.Origin] = lagPoint{Ops: o.BehindOps, Seconds: &sec}
	}
	return s
}
