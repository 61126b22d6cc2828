package httpapi

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/store"
)

// sseBatchLimit is the most events one page of a stream carries (the
// Python hub's _SSE_BATCH_LIMIT).
const sseBatchLimit = 500

// handleStream serves GET /logstream/stream (docs/compatibility.md#sse-and-health-routes): the
// filters and the cursor are checked by reading the first page before
// anything is sent, so a bad filter or an unknown cursor is a clean 400;
// then the stream replays what follows the cursor and tails the log,
// woken by the commits that hold an event its filters could match rather
// than by polling.
//
// The start is, in this order: since_event_id, the Last-Event-ID header
// (both strictly after that event on this node), the portable cursor
// parameter (on any node), or the newest event at connect.
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	cur, err := s.openCursor(ctx, parseQuery(r.URL.RawQuery), r.Header.Get("Last-Event-ID"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	watch, err := s.store.NewWatch(cur.f)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	defer watch.Close()
	changed := watch.Arm() // before the read, so no commit is missed
	page, err := cur.next(ctx, s.store)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	// The hub's global cap comes first: at the default caps one host
	// reaches it before its own, and must get the hub's 503.
	if !s.sse.acquire() {
		s.metrics.sseRefused.Inc()
		h := w.Header()
		h.Set("Retry-After", "5")
		h.Set("Content-Length", "0")
		h.Set("Connection", "close")
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	defer s.sse.release()
	if !s.clientStreams.Acquire(r) {
		s.clientStreams.refuse(w)
		return
	}
	defer s.clientStreams.Release(r)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &sseStream{s: s, w: w, rc: http.NewResponseController(w), cur: cur, watch: watch}
	if st.flush() != nil { // the headers go out now, not with the first event
		return
	}
	st.run(ctx, page, changed)
}

// openCursor reads the filters and the start of a stream.
func (s *Server) openCursor(ctx context.Context, q query, lastEventID string) (*streamCursor, error) {
	f, err := q.streamFilter()
	if err != nil {
		return nil, err
	}
	c := &streamCursor{f: f}
	c.f.Limit = sseBatchLimit
	c.f.Scope = auth.IdentityFrom(ctx).ReadScope()
	switch {
	case q["since_event_id"] != "":
		c.f.SinceEventID = q["since_event_id"]
	case lastEventID != "":
		c.f.SinceEventID, c.f.SinceName = lastEventID, "Last-Event-ID header"
	case q["cursor"] != "":
		c.f.Cursor, c.portable = q["cursor"], true
	default:
		latest, err := s.store.LatestSeq(ctx)
		if err != nil {
			return nil, err
		}
		c.f.AfterSeq = latest
	}
	return c, nil
}

// streamCursor is the position of a stream: the filters plus either a
// local sequence number (event-id starts) or a portable cursor.
type streamCursor struct {
	f        store.Filter
	portable bool
}

// next reads the page after the cursor and moves the cursor past it.
func (c *streamCursor) next(ctx context.Context, st Log) (store.ListResult, error) {
	page, err := st.List(ctx, c.f)
	if err != nil {
		return page, err
	}
	switch {
	case c.portable:
		c.f.Cursor = page.Cursor
	case len(page.Events) > 0:
		c.f.AfterSeq, c.f.SinceEventID = page.Events[len(page.Events)-1].Seq, ""
	case c.f.SinceEventID != "":
		// Look the id up as the page read did: stripped, like any routing
		// field (the read accepted it, so it passes).
		id, _ := rules.Routing(c.f.SinceEventID, "since_event_id", false)
		seq, err := st.EventSeq(ctx, id)
		if err != nil {
			return page, err
		}
		c.f.AfterSeq, c.f.SinceEventID = seq, ""
	}
	return page, nil
}

// sseStream is one open stream.
type sseStream struct {
	s   *Server
	w   http.ResponseWriter
	rc  *http.ResponseController
	cur *streamCursor
	// watch wakes the stream at commits holding an event its filters
	// could match.
	watch *store.Watch
	buf   []byte // the page being written, reused from page to page
}

// run writes pages until the client leaves, a write fails, or the node
// drains. A full page (or one cut at the size bound) is followed at once
// by the next; otherwise the stream sleeps until a matching commit, sending
// ": ping" after each heartbeat interval of silence.
func (st *sseStream) run(ctx context.Context, page store.ListResult, changed <-chan struct{}) {
	hb := time.NewTimer(st.s.cfg.SSEHeartbeat)
	defer hb.Stop()
	var woke time.Time
	for {
		if len(page.Events) > 0 {
			if err := st.writePage(page); err != nil {
				return
			}
			if !woke.IsZero() {
				st.s.metrics.sseLatency.Observe(time.Since(woke).Seconds())
			}
			hb.Reset(st.s.cfg.SSEHeartbeat)
		}
		if len(page.Events) < sseBatchLimit && !page.Cut {
			if !st.idle(ctx, hb, changed) {
				return
			}
			woke = time.Now()
		}
		changed = st.watch.Arm()
		var err error
		if page, err = st.cur.next(ctx, st.s.store); err != nil {
			if ctx.Err() == nil {
				st.s.log.Warn("sse stream ended: read failed", "err", err)
			}
			return
		}
	}
}

// idle waits for a matching commit; false means the stream must end.
func (st *sseStream) idle(ctx context.Context, hb *time.Timer, changed <-chan struct{}) bool {
	for {
		select {
		case <-changed:
			return true
		case <-hb.C:
			st.buf = append(st.buf[:0], ": ping\n\n"...)
			if st.flush() != nil {
				return false
			}
			hb.Reset(st.s.cfg.SSEHeartbeat)
		case <-ctx.Done():
			return false
		case <-st.s.drain.Done():
			return false
		}
	}
}

// writePage writes one frame per event (id, event: logstream, data: the
// full event as one JSON line; sseFrames shares them between streams),
// then, on a portable-cursor stream, a ": cursor <token>" comment a
// client may resume from on any node.
func (st *sseStream) writePage(page store.ListResult) error {
	b := st.buf[:0]
	shared := st.s.sse.active() > 1
	for i := range page.Events {
		var err error
		if b, err = st.s.frames.appendSharedFrame(b, &page.Events[i], shared); err != nil {
			st.s.log.Error("sse stream ended: event not encodable", "id", page.Events[i].ID, "err", err)
			return err
		}
	}
	if st.cur.portable {
		b = append(append(append(b, ": cursor "...), page.Cursor...), "\n\n"...)
	}
	st.buf = b
	if err := st.flush(); err != nil {
		return err
	}
	st.s.metrics.sseFrames.Add(float64(len(page.Events)))
	return nil
}

// flush writes the buffer and flushes it, bounding the write so that a
// client that stopped reading is dropped instead of holding a slot.
func (st *sseStream) flush() error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(st.s.cfg.WriteTimeout))
	if _, err := st.w.Write(st.buf); err != nil {
		return err
	}
	return st.rc.Flush()
}

// sseSlots caps the number of open streams.
type sseSlots struct {
	mu    sync.Mutex
	open  int
	max   int
	gauge prometheus.Gauge
}

func (c *sseSlots) acquire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open >= c.max {
		return false
	}
	c.open++
	c.gauge.Set(float64(c.open))
	return true
}

func (c *sseSlots) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open--
	c.gauge.Set(float64(c.open))
}

// active is the number of open streams.
func (c *sseSlots) active() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}
