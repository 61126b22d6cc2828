package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lsnode/lsnode/node/sseclient"
)

// Reconnect backoff of `events tail`.
const (
	tailMinBackoff = 250 * time.Millisecond
	tailMaxBackoff = 5 * time.Second
)

// tailIdleTimeout is how long `events tail` waits for anything on a
// stream before taking the connection for dead and reopening it: a node
// sends ": ping" after 15 s of silence, as the Python hub does, so this
// is three missed pings. A variable so that tests can shorten it.
var tailIdleTimeout = 45 * time.Second

// eventsTail follows /logstream/stream until interrupted, printing each
// event; after a disconnect it reconnects and resumes after the last
// event it printed (Last-Event-ID), so nothing is skipped or repeated.
func eventsTail(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("events tail", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	ta := newToolArgs(fs.FlagSet)
	addFilterFlags(ta)
	ta.str("cursor", "cursor", "start after this portable cursor (any node)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	t := &tailer{c: c, query: url.Values{}, stderr: stderr}
	for k, v := range ta.collect() {
		switch k {
		case "since_event_id":
			t.lastID = v.(string)
		case "cursor":
			t.cursor = v.(string)
		default:
			t.query.Set(k, v.(string))
		}
	}
	t.print = tablePrinter(stdout)
	if *cf.asJSON {
		t.print = func(f sseclient.Frame) error { _, err := fmt.Fprintln(stdout, f.Data); return err }
	}
	if t.lastID == "" && t.cursor == "" {
		if err := t.startNow(ctx); err != nil {
			return err
		}
	}
	return t.run(ctx)
}

// startNow pins the start of a tail given no position at the node's
// newest event: a stream opened without one starts at the newest event
// of each connect, so a reconnect before the first event printed would
// skip what was written meanwhile. The position is the portable cursor
// of a one-event page (it covers everything the node holds), else the
// id of that event (a Python hub has no cursors); an empty log without
// cursors leaves it unset.
func (t *tailer) startNow(ctx context.Context) error {
	raw, err := t.c.callTool(ctx, "mempalace_event_list", map[string]any{"limit": 1, "order": "desc"})
	if err != nil {
		return err
	}
	var page struct {
		Events []struct {
			ID string `json:"id"`
		} `json:"events"`
		Cursor string `json:"cursor"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("decode the newest event: %w", err)
	}
	switch {
	case page.Cursor != "":
		t.cursor = page.Cursor
	case len(page.Events) > 0:
		t.lastID = page.Events[0].ID
	}
	return nil
}

// tablePrinter prints each event as one row in columns of fixed width
// (no table: rows stream out one at a time).
func tablePrinter(w io.Writer) func(sseclient.Frame) error {
	return func(f sseclient.Frame) error {
		var e wireEvent
		if err := json.Unmarshal([]byte(f.Data), &e); err != nil {
			return fmt.Errorf("event %s: %w", f.ID, err)
		}
		_, err := fmt.Fprintf(w, "%-6d %s  %s %s → %s %s %s  %s\n", e.Seq, e.CreatedAt, padRight(e.Type, 16),
			padRight(e.FromAgent, 12), padRight(orDash(e.ToAgent), 12), padRight(orDash(e.Status), 9), e.ID, oneLine(e.Body, bodyWidth))
		return err
	}
}

// tailer is one `events tail` run.
type tailer struct {
	c      *nodeClient
	query  url.Values
	lastID string // resume point: the last event printed
	cursor string // portable start, used until an event was printed
	print  func(sseclient.Frame) error
	stderr io.Writer

	connected bool // a stream was opened at least once
}

// run connects, reads and reconnects until ctx ends (a clean exit) or
// the node refuses the stream for good (an error).
func (t *tailer) run(ctx context.Context) error {
	backoff := tailMinBackoff
	for {
		opened, wait, err := t.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if stop := t.retryable(err); stop != nil {
			return stop
		}
		if opened {
			backoff = tailMinBackoff
		}
		delay := wait
		if delay == 0 {
			delay, backoff = backoff, min(backoff*2, tailMaxBackoff)
		}
		fmt.Fprintf(t.stderr, "lsnode events tail: %v; reconnecting in %v\n", err, delay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
	}
}

// retryable returns nil when the tail should reconnect after err, and
// the error to stop with otherwise: output failures, refusals other than
// the stream caps (503 for the node's, 429 for this client's) and a
// proxy's answers for a node it cannot reach (502, 504), and a node never
// reached. A node that does not hold
// the last event (another node behind the same address) is retried from
// the portable cursor when the stream reported one.
func (t *tailer) retryable(err error) error {
	var se *statusError
	var oe *outputError
	switch {
	case errors.As(err, &oe):
		return oe.err
	case errors.As(err, &se) && se.status == http.StatusBadRequest && t.lastID != "" && t.cursor != "":
		t.lastID = ""
		return nil
	case errors.As(err, &se) && !slices.Contains(retriedStatuses, se.status):
		return err
	case errors.Is(err, errUnreachable) && !t.connected:
		return err
	}
	return nil
}

// retriedStatuses are the refusals a tail waits out: the stream caps and
// a proxy's "the node is not there right now".
var retriedStatuses = []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable,
	http.StatusGatewayTimeout}

// outputError is a failure to print: the tail stops.
type outputError struct{ err error }

func (e *outputError) Error() string { return e.err.Error() }

// follow reads one connection until it ends. opened reports a 200; a
// refusal returns the Retry-After the node asked for.
func (t *tailer) follow(ctx context.Context) (opened bool, wait time.Duration, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var silent atomic.Bool
	idle := time.AfterFunc(tailIdleTimeout, func() { silent.Store(true); cancel() })
	defer idle.Stop()
	defer func() {
		if silent.Load() {
			err = fmt.Errorf("no data from the node for %v", tailIdleTimeout)
		}
	}()
	q := url.Values{}
	for k, v := range t.query {
		q[k] = v
	}
	if t.lastID == "" && t.cursor != "" {
		q.Set("cursor", t.cursor)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.c.base+"/logstream/stream?"+q.Encode(), nil)
	if err != nil {
		return false, 0, err
	}
	if t.lastID != "" {
		req.Header.Set("Last-Event-ID", t.lastID)
	}
	resp, err := t.c.do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return false, time.Duration(secs) * time.Second, refusal(resp.StatusCode, body)
	}
	t.connected = true
	rd := sseclient.NewReader(resp.Body)
	for {
		idle.Reset(tailIdleTimeout) // runs while waiting on the node, not while printing
		f, err := rd.Next()
		idle.Stop()
		if err != nil {
			if err == io.EOF {
				err = errors.New("the node closed the stream")
			}
			return true, 0, err
		}
		if f.IsComment() {
			t.noteCursor(f)
			continue
		}
		if err := t.print(f); err != nil {
			return true, 0, &outputError{err}
		}
		t.lastID = f.ID
	}
}

// noteCursor keeps the portable cursor a stream opened with one reports.
func (t *tailer) noteCursor(f sseclient.Frame) {
	for _, c := range f.Comments {
		if tok, ok := strings.CutPrefix(c, "cursor "); ok {
			t.cursor = tok
		}
	}
}
