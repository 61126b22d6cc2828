package nodetest

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/lsnode/lsnode/node/sseclient"
)

// Stream is an open SSE connection.
type Stream struct {
	resp *http.Response
	rd   *sseclient.Reader
	stop context.CancelFunc
}

// OpenStream opens /logstream/stream<query> and checks the 200 headers;
// the stream is closed when the test ends.
func OpenStream(t testing.TB, s Server, query string, header map[string]string) *Stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/logstream/stream"+query, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		cancel()
		t.Fatalf("open stream: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("open stream: status %d: %s", resp.StatusCode, b)
	}
	st := &Stream{resp: resp, rd: sseclient.NewReader(resp.Body), stop: cancel}
	t.Cleanup(st.Close)
	return st
}

// Close ends the stream.
func (s *Stream) Close() {
	s.stop()
	s.resp.Body.Close()
}

// Header is the header of the stream's 200 answer.
func (s *Stream) Header() http.Header { return s.resp.Header }

// Reader is the stream's frame reader, for a test that reads frames
// itself.
func (s *Stream) Reader() *sseclient.Reader { return s.rd }

// Next reads the next frame, failing the test after a deadline.
func (s *Stream) Next(t testing.TB) sseclient.Frame {
	t.Helper()
	type result struct {
		f   sseclient.Frame
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := s.rd.Next()
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("read frame: %v", r.err)
		}
		return r.f
	case <-time.After(10 * time.Second):
		s.Close()
		t.Fatal("no frame within 10s")
	}
	return sseclient.Frame{}
}

// NextEvent reads frames up to the next event frame, skipping comments.
func (s *Stream) NextEvent(t testing.TB) sseclient.Frame {
	t.Helper()
	for {
		if f := s.Next(t); !f.IsComment() {
			return f
		}
	}
}
