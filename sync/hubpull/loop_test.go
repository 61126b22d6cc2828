package hubpull_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/sync/fakehub"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// manualTicker is a Ticker fired by the test.
type manualTicker struct {
	c       chan time.Time
	stopped atomic.Bool
}

func (m *manualTicker) C() <-chan time.Time { return m.c }
func (m *manualTicker) Stop()               { m.stopped.Store(true) }

// TestPuller_Loop: Start runs a round at once and then one per tick
// of the injected ticker, re-reading peers.json each time; Stop ends the
// loop (and stops its ticker) and the puller refuses to start again.
func TestPuller_Loop(t *testing.T) {
	a := startHub(t, fakehub.Config{Seed: 31})
	b := startHub(t, fakehub.Config{Seed: 32})
	a.note(t, "a1")
	b.note(t, "b1")
	ticker := &manualTicker{c: make(chan time.Time)}
	var gotInterval time.Duration
	rounds := make(chan []hubpull.PeerResult, 8)
	e := newPullEnv(t, func(c *hubpull.Config) {
		c.Interval = 15 * time.Second
		c.NewTicker = func(d time.Duration) hubpull.Ticker { gotInterval = d; return ticker }
		c.AfterRound = func(r []hubpull.PeerResult) { rounds <- r }
	})
	e.setPeers(peerEntry{Name: "a", URL: a.srv.URL})
	next := func(what string) []hubpull.PeerResult {
		t.Helper()
		select {
		case r := <-rounds:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("no round: %s", what)
			return nil
		}
	}
	if err := e.p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Start(context.Background()); !errors.Is(err, hubpull.ErrStarted) {
		t.Fatalf("second Start: %v", err)
	}
	if r := next("at start"); len(r) != 1 || r[0].PulledEvents != 1 {
		t.Fatalf("first round %+v", r)
	}
	if gotInterval != 15*time.Second {
		t.Fatalf("ticker interval %s", gotInterval)
	}
	select {
	case r := <-rounds:
		t.Fatalf("a round ran without a tick: %+v", r)
	default:
	}
	a.note(t, "a2")
	e.setPeers(peerEntry{Name: "a", URL: a.srv.URL}, peerEntry{Name: "b", URL: b.srv.URL})
	ticker.c <- time.Time{}
	r := next("after a tick")
	if len(r) != 2 || r[0].PulledEvents != 1 || r[1].PulledEvents != 1 {
		t.Fatalf("second round %+v", r)
	}
	e.p.Stop()
	if !ticker.stopped.Load() {
		t.Fatal("ticker not stopped")
	}
	if err := e.p.Start(context.Background()); !errors.Is(err, hubpull.ErrStopped) {
		t.Fatalf("Start after Stop: %v", err)
	}
	if got := e.p.SyncOnce(context.Background()); got != nil {
		t.Fatalf("SyncOnce after Stop ran: %+v", got)
	}
}

// TestPuller_StopCancelsRound: Stop during a round against a peer
// that never answers returns promptly and records nothing for the peer.
func TestPuller_StopCancelsRound(t *testing.T) {
	bad := badPeers(t)
	rounds := make(chan []hubpull.PeerResult, 1)
	e := newPullEnv(t, func(c *hubpull.Config) {
		c.Interval = time.Hour
		c.Timeout = time.Hour
		c.AfterRound = func(r []hubpull.PeerResult) { rounds <- r }
	})
	e.setPeers(bad[3]) // "slow": accepts and never answers
	if err := e.p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "the round to begin", func() bool { return len(e.p.Status()) == 1 })
	done := make(chan struct{})
	go func() { e.p.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not cancel the round")
	}
	if st := e.p.Status()[0]; st.Synced {
		t.Fatalf("a cancelled round was recorded: %+v", st)
	}
	select {
	case r := <-rounds:
		t.Fatalf("AfterRound called for a cancelled round: %+v", r)
	default:
	}
}

// TestPuller_SlowPeerDoesNotHoldTheRound: rounds wait for every peer,
// so one peer's share of a round is bounded (by the longer of the loop's
// interval and the request timeout): a peer that answers every request
// in time but slowly, request after request, must not keep the other
// peers from being pulled round after round. Its pull is reported
// partial, and goes on next round.
func TestPuller_SlowPeerDoesNotHoldTheRound(t *testing.T) {
	good := startHub(t, fakehub.Config{Seed: 41})
	good.note(t, "g1")
	const origins = 2000 // at 10 ms a page, 20 s of pages
	var vector strings.Builder
	for i := range origins {
		if i > 0 {
			vector.WriteString(", ")
		}
		fmt.Fprintf(&vector, `"rep_%032x": 5`, i+1)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sync/version_vector" {
			fmt.Fprintf(w, `{"replica_id": "rep_%s", "version_vector": {%s}}`, strings.Repeat("f", 32), vector.String())
			return
		}
		select { // every page comes late, and empty
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
		fmt.Fprintf(w, `{"origin": %q, "events": [], "count": 0}`, r.URL.Query().Get("origin"))
	}))
	t.Cleanup(slow.Close)
	ticker := &manualTicker{c: make(chan time.Time)}
	rounds := make(chan []hubpull.PeerResult, 8)
	e := newPullEnv(t, func(c *hubpull.Config) {
		c.Interval = 100 * time.Millisecond
		c.Timeout = time.Second
		c.NewTicker = func(time.Duration) hubpull.Ticker { return ticker }
		c.AfterRound = func(r []hubpull.PeerResult) { rounds <- r }
	})
	e.setPeers(peerEntry{Name: "slow", URL: slow.URL}, peerEntry{Name: "good", URL: good.srv.URL})
	if err := e.p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.p.Stop)
	next := func(what string) []hubpull.PeerResult {
		t.Helper()
		select {
		case r := <-rounds:
			return r
		case <-time.After(15 * time.Second):
			t.Fatalf("no round ended: %s (the slow peer holds it)", what)
			return nil
		}
	}
	r := next("the first")
	if r[1].Result() != "ok" || r[1].PulledEvents != 1 {
		t.Fatalf("good peer, first round: %+v %s", r[1], r[1].Error())
	}
	if r[0].Result() != "partial" || !strings.Contains(r[0].Error(), "goes on next round") {
		t.Errorf("slow peer: %s %q, want partial, going on next round", r[0].Result(), r[0].Error())
	}
	if st := e.status("slow"); !st.Reachable {
		t.Errorf("slow peer status %+v, want reachable", st)
	}
	good.note(t, "g2")
	ticker.c <- time.Time{}
	if r := next("after a tick"); r[1].PulledEvents != 1 {
		t.Fatalf("good peer, second round: %+v %s", r[1], r[1].Error())
	}
}
