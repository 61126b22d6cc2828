package nodetest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// Server is a served surface: a node, or a surface a test serves alone.
type Server interface {
	URL() string // the base URL, "http://127.0.0.1:port"
}

// Req is one request of a test.
type Req struct {
	Method string // default GET
	Path   string
	Header map[string]string // "Host" sets the request's Host
	Body   string
}

// Resp is a complete answer.
type Resp struct {
	Status int
	Header http.Header
	Body   string
}

func (req Req) build(t testing.TB, s Server) *http.Request {
	t.Helper()
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	r, err := http.NewRequest(req.Method, s.URL()+req.Path, strings.NewReader(req.Body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range req.Header {
		if strings.EqualFold(k, "Host") {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	return r
}

// Do sends req to s and reads the whole answer.
func Do(t testing.TB, s Server, req Req) Resp {
	t.Helper()
	r := req.build(t, s)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, req.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", r.Method, req.Path, err)
	}
	return Resp{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}

// Status sends req and returns the status and headers without reading
// the body (a stream would never end).
func Status(t testing.TB, s Server, req Req) (int, http.Header) {
	t.Helper()
	r := req.build(t, s)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, req.Path, err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// Get is a GET with an optional bearer token.
func Get(t testing.TB, s Server, path, token string) Resp {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return Do(t, s, Req{Path: path, Header: h})
}

// JSON decodes a JSON answer into a generic map.
func JSON(t testing.TB, r Resp) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// ClientFrom returns an HTTP client whose connections come from ip (any
// 127.0.0.0/8 address reaches a loopback bind on Linux), so a test can be
// two clients at once.
func ClientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// DoFrom sends a JSON request with hc and reads the whole answer.
func DoFrom(t testing.TB, hc *http.Client, s Server, method, path, body string) Resp {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Resp{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}
