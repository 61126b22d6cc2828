package hubpull

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pyhttp"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
)

// maxErrorBodyBytes bounds what is read of a non-2xx answer (for its
// {"error": msg}).
const maxErrorBodyBytes = 4 << 10

// maxShownErrorText bounds a peer's error text repeated in ours.
const maxShownErrorText = 200

// peerClient makes one peer's GET requests the way the Python hub's
// transport does (transport.http_request): base URL without trailing
// slashes, path, urlencoded parameters in the order given, the bearer
// token when set, JSON back.
type peerClient struct {
	hc       *http.Client
	base     string
	token    string
	maxBytes int64
}

func newPeerClient(hc *http.Client, peer Peer, maxBytes int64) *peerClient {
	return &peerClient{hc: hc, base: strings.TrimRight(peer.URL, "/"), token: peer.Token, maxBytes: maxBytes}
}

// get fetches path and reads its JSON body with decode (a syncwire
// Decode function). Errors are *peerError or *StatusError, their texts
// scrubbed of the token; a cancelled ctx is returned as ctx.Err().
func (c *peerClient) get(ctx context.Context, path string, params []pyhttp.Param, decode func([]byte) error) error {
	raw := syncwire.URL(c.base, path, params...)
	shown := c.scrub(RedactURL(raw))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return c.errorf(ErrPeerUnreachable, "%s: %v", shown, err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return c.errorf(ErrPeerUnreachable, "%s: %s", shown, transportText(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
		return &StatusError{URL: shown, Code: resp.StatusCode, Msg: c.scrub(peerErrorText(body))}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return c.errorf(ErrPeerUnreachable, "%s: reading the answer: %s", shown, transportText(err))
	case int64(len(body)) > c.maxBytes:
		return c.errorf(ErrResponseTooLarge, "%s: answer exceeds %d bytes", shown, c.maxBytes)
	}
	var top *syncwire.TopError
	switch err := decode(body); {
	case err == nil:
		return nil
	case errors.Is(err, syncwire.ErrTrailingData):
		return c.errorf(ErrPeerProtocol, "%s: answer has data after its JSON value", shown)
	case errors.As(err, &top):
		return c.errorf(ErrPeerProtocol, "%s: %v", shown, err)
	default:
		return c.errorf(ErrPeerProtocol, "%s: answer is not the expected JSON: %v", shown, err)
	}
}

// errorf builds a *peerError whose text is scrubbed of the token.
func (c *peerClient) errorf(kind error, format string, args ...any) error {
	return &peerError{kind: kind, text: c.scrub(fmt.Sprintf(format, args...))}
}

// scrub removes the token from a text bound for an error, a log line or
// a status. Every text this package derives from a peer's answer or a
// transport error passes through it.
func (c *peerClient) scrub(s string) string {
	if c.token == "" {
		return s
	}
	return strings.ReplaceAll(s, c.token, "[redacted]")
}

// peerError is an error of one request. It wraps nothing but its kind,
// so no underlying error (which might quote a header) can be reached
// through errors.Unwrap.
type peerError struct {
	kind error
	text string
}

func (e *peerError) Error() string        { return e.text }
func (e *peerError) Is(target error) bool { return target == e.kind }

// transportText is a transport error without Go's `Get "<url>": `
// prefix (the URL is already in our text).
func transportText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return "timed out"
		}
		err = ue.Err
	}
	return err.Error()
}

// peerErrorText extracts the "error" member of a JSON error body, bounded.
func peerErrorText(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return ""
	}
	if len(e.Error) > maxShownErrorText {
		return strings.ToValidUTF8(e.Error[:maxShownErrorText], "") + "…"
	}
	return e.Error
}

// statusText is the reason phrase urllib shows in "HTTP Error <code>:
// <reason>".
func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "status " + strconv.Itoa(code)
}
