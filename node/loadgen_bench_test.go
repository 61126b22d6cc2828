package node

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks' load generator. Its clients run in the benchmark process,
// on the cores the server uses, so it does as little as a client can: one
// keep-alive HTTP/1.1 connection each, a request prebuilt once whose
// fixed-width tag is rewritten in place, the response read with one
// bufio.Reader (status line, headers, a Content-Length body). It still
// checks every answer: status 200, the JSON-RPC frame with the request's
// own id, "success": true with an event id, and the request's unique body
// echoed in that event.

// loadTagWidth is the width of a request's tag: its sequence number,
// zero-padded, used as the JSON-RPC id and as the event body.
const loadTagWidth = 9

// loadTarget is where and how the load generator posts.
type loadTarget struct {
	addr  string // host:port
	host  string // the Host header
	token string // bearer token; "" sends none
	// extra goes into the params before the tool name (an empty _meta
	// sends the call down the SDK's path).
	extra string
}

// newLoadTarget reads the address from a server's base URL.
func newLoadTarget(base, token string) loadTarget {
	u, err := url.Parse(base)
	if err != nil {
		panic(err) // a test server's URL always parses
	}
	return loadTarget{addr: u.Host, host: u.Host, token: token}
}

// loadBody is the event_append call with tag as its id and body; every
// argument but the body is fixed.
func loadBody(extra, tag string) string {
	return `{"jsonrpc":"2.0","id":"` + tag + `","method":"tools/call","params":{` + extra + `"name":"mempalace_event_append","arguments":` +
		`{"type":"bench.append","stream":"project/bench","room":"delegation","from_agent":"bench","to_agent":"peer","body":"` + tag + `"}}}`
}

// request returns the whole HTTP request of one call and the offsets of
// its tag's two copies.
func (t loadTarget) request() ([]byte, [2]int) {
	placeholder := string(bytes.Repeat([]byte{'#'}, loadTagWidth))
	body := loadBody(t.extra, placeholder)
	head := "POST /mcp HTTP/1.1\r\nHost: " + t.host + "\r\n"
	if t.token != "" {
		head += "Authorization: Bearer " + t.token + "\r\n"
	}
	head += "Accept: application/json\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	req := []byte(head + body)
	first := bytes.Index(req, []byte(placeholder))
	second := first + loadTagWidth + bytes.Index(req[first+loadTagWidth:], []byte(placeholder))
	return req, [2]int{first, second}
}

// runLoad sends n calls over clients connections, at most one in flight
// on each, and returns the time they took and the first failure.
func runLoad(t loadTarget, clients, n int) (time.Duration, error) {
	conns := make([]*loadConn, clients)
	for i := range conns {
		c, err := dialLoad(t)
		if err != nil {
			return 0, err
		}
		defer c.conn.Close()
		conns[i] = c
	}
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	start := time.Now()
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := next.Add(1); seq <= int64(n); seq = next.Add(1) {
				if err := c.call(seq); err != nil {
					errOnce.Do(func() { first = fmt.Errorf("call %d: %w", seq, err) })
					next.Store(int64(n)) // stop the others too
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), first
}

// loadConn is one client: its connection and its reusable buffers.
type loadConn struct {
	conn   net.Conn
	rd     *bufio.Reader
	req    []byte
	tagAt  [2]int
	body   []byte // the last response body
	expect []byte // the start of a valid answer, rebuilt per call
}

func dialLoad(t loadTarget) (*loadConn, error) {
	conn, err := net.Dial("tcp", t.addr)
	if err != nil {
		return nil, err
	}
	req, at := t.request()
	return &loadConn{conn: conn, rd: bufio.NewReaderSize(conn, 4096), req: req, tagAt: at}, nil
}

// call posts the call tagged seq and checks its answer.
func (c *loadConn) call(seq int64) error {
	tag := c.req[c.tagAt[0] : c.tagAt[0]+loadTagWidth]
	putDigits(tag, seq)
	copy(c.req[c.tagAt[1]:], tag)
	if _, err := c.conn.Write(c.req); err != nil {
		return err
	}
	if err := c.readResponse(); err != nil {
		return err
	}
	return c.check(tag)
}

// putDigits writes n into dst, zero-padded to its width.
func putDigits(dst []byte, n int64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
}

// readResponse reads one response into c.body: it must be a 200 with a
// Content-Length and no Connection: close.
func (c *loadConn) readResponse() error {
	line, err := c.rd.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("status line %q", line)
	}
	length := -1
	for {
		line, err = c.rd.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 { // the blank line ending the header
			break
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "Content-Length"):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return fmt.Errorf("content-length %q", value)
			}
		case asciiEqualFold(name, "Transfer-Encoding"), asciiEqualFold(name, "Connection") && asciiEqualFold(value, "close"):
			return fmt.Errorf("unexpected header %q", line)
		}
	}
	if length < 0 {
		return errors.New("no Content-Length")
	}
	if cap(c.body) < length {
		c.body = make([]byte, length)
	}
	c.body = c.body[:length]
	_, err = io.ReadFull(c.rd, c.body)
	return err
}

// asciiEqualFold is bytes.EqualFold for an ASCII header name.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i]|0x20, s[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

// loadAnswerHead is how every successful answer starts, up to the event
// id; loadAnswerTail is how it ends.
const (
	loadAnswerHead = `","result":{"content":[{"type":"text","text":"{\n  \"success\": true,\n  \"event\": {\n    \"id\": \"`
	loadAnswerTail = `\n}"}]}}`
)

// check holds the answer in c.body to the call tagged tag: the JSON-RPC
// frame with that id, a successful append with a non-empty event id, the
// tag as the event's body, and the frame closed.
func (c *loadConn) check(tag []byte) error {
	c.expect = append(append(append(c.expect[:0], `{"jsonrpc":"2.0","id":"`...), tag...), loadAnswerHead...)
	rest, ok := bytes.CutPrefix(c.body, c.expect)
	if !ok || !bytes.HasSuffix(rest, []byte(loadAnswerTail)) {
		return fmt.Errorf("answer %s", c.body)
	}
	id, _, ok := bytes.Cut(rest, []byte(`\"`))
	if !ok || len(id) == 0 || bytes.ContainsAny(id, " \\{}") {
		return fmt.Errorf("no event id in %s", c.body)
	}
	c.expect = append(append(append(c.expect[:0], `\"body\": \"`...), tag...), `\"`...)
	if !bytes.Contains(rest, c.expect) {
		return fmt.Errorf("answer without the call's body %s: %s", tag, c.body)
	}
	return nil
}

// TestLoadGeneratorChecksAnswers: the load generator takes a right answer
// and refuses every kind of wrong one, so a benchmark cannot count calls
// the server did not answer as asked.
func TestLoadGeneratorChecksAnswers(t *testing.T) {
	right := func(tag string) string {
		return `{"jsonrpc":"2.0","id":"` + tag + loadAnswerHead + `evt_1\",\n    \"body\": \"` + tag + `\"` + loadAnswerTail
	}
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, tag string)
		ok     bool
	}{
		{"right", func(w http.ResponseWriter, tag string) { _, _ = io.WriteString(w, right(tag)) }, true},
		{"status 500", func(w http.ResponseWriter, tag string) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, right(tag))
		}, false},
		{"another id", func(w http.ResponseWriter, tag string) {
			_, _ = io.WriteString(w, strings.Replace(right(tag), `"id":"`+tag, `"id":"x`+tag[1:], 1))
		}, false},
		{"success false", func(w http.ResponseWriter, tag string) {
			_, _ = io.WriteString(w, strings.Replace(right(tag), "true", "false", 1))
		}, false},
		{"no event id", func(w http.ResponseWriter, tag string) {
			_, _ = io.WriteString(w, strings.Replace(right(tag), "evt_1", "", 1))
		}, false},
		{"another body", func(w http.ResponseWriter, tag string) {
			_, _ = io.WriteString(w, strings.Replace(right(tag), `\"body\": \"`+tag, `\"body\": \"x`+tag[1:], 1))
		}, false},
		{"cut short", func(w http.ResponseWriter, tag string) {
			_, _ = io.WriteString(w, strings.TrimSuffix(right(tag), "}"))
		}, false},
		{"chunked", func(w http.ResponseWriter, tag string) {
			_, _ = io.WriteString(w, right(tag))
			w.(http.Flusher).Flush()
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				_, rest, _ := strings.Cut(string(body), `"id":"`)
				tc.answer(w, rest[:loadTagWidth])
			}))
			defer srv.Close()
			_, err := runLoad(newLoadTarget(srv.URL, ""), 2, 10)
			if (err == nil) != tc.ok {
				t.Fatalf("runLoad: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
