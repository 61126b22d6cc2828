package memnet

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/memberlist"
)

// recv waits for one packet on t, or reports none within d.
func recv(t *Transport, d time.Duration) (*memberlist.Packet, bool) {
	select {
	case p := <-t.PacketCh():
		return p, true
	case <-time.After(d):
		return nil, false
	}
}

// arrived reports whether a packet waits on t once every goroutine of the
// bubble is blocked: by then whatever was sent has arrived or is lost.
func arrived(t *Transport) bool {
	synctest.Wait()
	select {
	case <-t.PacketCh():
		return true
	default:
		return false
	}
}

func TestHub_CutDropsPacketsAndFailsDials(t *testing.T) {
	synctest.Test(t, testCutDropsPacketsAndFailsDials)
}

func testCutDropsPacketsAndFailsDials(t *testing.T) {
	h := New()
	defer h.Close()
	a, b, c := h.NewTransport("a"), h.NewTransport("b"), h.NewTransport("c")

	if _, err := a.WriteTo([]byte("hi"), b.Addr()); err != nil {
		t.Fatal(err)
	}
	if p, ok := recv(b, time.Second); !ok || string(p.Buf) != "hi" {
		t.Fatalf("b got %v, %v", p, ok)
	}

	h.Partition([]string{"a"}, []string{"b", "c"})
	if _, err := a.WriteToAddress([]byte("lost"), memberlist.Address{Name: "b"}); err != nil {
		t.Fatalf("a cut send must look sent: %v", err)
	}
	if _, err := a.DialTimeout(c.Addr(), time.Second); !errors.Is(err, ErrLinkCut) {
		t.Fatalf("dial over a cut link: %v", err)
	}
	if _, err := b.WriteTo([]byte("ok"), c.Addr()); err != nil {
		t.Fatal(err)
	}
	if _, ok := recv(c, time.Second); !ok {
		t.Fatal("b to c is not cut but nothing arrived")
	}
	if arrived(b) {
		t.Fatal("a packet crossed the cut")
	}
	if h.Dropped() != 2 {
		t.Fatalf("Dropped = %d, want 2", h.Dropped())
	}

	h.HealAll()
	h.Isolate("c")
	if _, err := b.DialTimeout(c.Addr(), time.Second); !errors.Is(err, ErrLinkCut) {
		t.Fatalf("dial to an isolated node: %v", err)
	}
	h.Restore("c")
	conn, err := b.DialTimeout(c.Addr(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	select {
	case in := <-c.StreamCh():
		in.Close()
	case <-time.After(time.Second):
		t.Fatal("stream did not arrive")
	}
}

func TestHub_MuteLosesPacketsButNotStreams(t *testing.T) {
	synctest.Test(t, testMuteLosesPacketsButNotStreams)
}

func testMuteLosesPacketsButNotStreams(t *testing.T) {
	h := New()
	defer h.Close()
	a, b := h.NewTransport("a"), h.NewTransport("b")
	h.Mute("a")
	if _, err := a.WriteTo([]byte("lost"), b.Addr()); err != nil {
		t.Fatalf("a muted send must look sent: %v", err)
	}
	if arrived(b) {
		t.Fatal("a muted node's packet arrived")
	}
	if _, err := b.WriteTo([]byte("in"), a.Addr()); err != nil {
		t.Fatal(err)
	}
	if _, ok := recv(a, time.Second); !ok {
		t.Fatal("a muted node must still receive")
	}
	conn, err := a.DialTimeout(b.Addr(), time.Second)
	if err != nil {
		t.Fatalf("a muted node's dial: %v", err)
	}
	conn.Close()
	select {
	case in := <-b.StreamCh():
		in.Close()
	case <-time.After(time.Second):
		t.Fatal("a muted node's stream did not arrive")
	}
	if h.Dropped() != 1 {
		t.Fatalf("Dropped = %d, want 1", h.Dropped())
	}
	h.Unmute("a")
	if _, err := a.WriteTo([]byte("back"), b.Addr()); err != nil {
		t.Fatal(err)
	}
	if _, ok := recv(b, time.Second); !ok {
		t.Fatal("nothing arrived after Unmute")
	}
}

// TestHub_ShutDownNodeNeverBlocksSenders: memberlist's MockTransport
// blocks a sender until the receiver reads; after Shutdown nobody reads,
// and the pumps must keep senders moving.
func TestHub_ShutDownNodeNeverBlocksSenders(t *testing.T) {
	h := New()
	a, b := h.NewTransport("a"), h.NewTransport("b")
	if err := b.Shutdown(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 * packetBuffer {
			_, _ = a.WriteTo([]byte("x"), b.Addr())
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("sends to a shut down node blocked")
	}
	h.Close()
	if _, err := a.WriteTo([]byte("x"), b.Addr()); err != nil {
		t.Fatalf("send after Close: %v", err)
	}
}
