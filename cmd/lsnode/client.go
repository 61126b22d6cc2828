package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/sseclient"
)

// defaultAddr is where the client commands find a node by default.
const defaultAddr = "http://127.0.0.1:8765"

// clientFlags are the flags every client command shares.
type clientFlags struct {
	addr      *string
	tokenFile *string
	caFile    *string
	asJSON    *bool
	addrFlag  string // the name of the flag addr holds
}

// addClientFlags registers --addr, --token-file and --json on fs.
func addClientFlags(fs *flag.FlagSet) *clientFlags {
	return addClientFlagsAt(fs, "addr", osEnv.or(defaultAddr, "LSNODE_ADDR"), "base URL of the node (env LSNODE_ADDR)")
}

// addClientFlagsAt is addClientFlags with the node's URL in the flag
// named name, def by default.
func addClientFlagsAt(fs *flag.FlagSet, name, def, usage string) *clientFlags {
	return &clientFlags{
		addr: fs.String(name, def, usage), addrFlag: name,
		tokenFile: fs.String("token-file", os.Getenv("LSNODE_TOKEN_FILE"),
			"file holding the bearer token (env LSNODE_TOKEN_FILE; else LSNODE_TOKEN or MEMPALACE_MCP_HTTP_TOKEN)"),
		caFile: fs.String("tls-ca", os.Getenv("LSNODE_TLS_CA"),
			"CA certificate file (PEM) to trust for an https --addr, besides the system's (env LSNODE_TLS_CA)"),
		asJSON: fs.Bool("json", false, "print JSON for scripts instead of a table"),
	}
}

// client builds the HTTP client of the parsed flags.
func (f *clientFlags) client() (*nodeClient, error) {
	token, tokenFrom, err := resolveToken(osEnv, *f.tokenFile)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(*f.addr, "/")
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageErrorf("--%s %q is not an http(s) URL", f.addrFlag, *f.addr)
	}
	hc, err := httpClient(*f.caFile)
	if err != nil {
		return nil, err
	}
	return &nodeClient{base: base, token: token, tokenFrom: tokenFrom, http: hc}, nil
}

// answerTimeout bounds the wait for a node to start answering a request:
// a node that takes the connection and never answers (a stopped process,
// a wedged proxy) fails the command instead of hanging it. No command
// long-polls; the SSE stream of `events tail` answers at once and has its
// own idle bound.
var answerTimeout = 30 * time.Second

// httpClient is the default client, trusting caFile's certificates too
// when one is given (a node whose HTTPS certificate a private CA signed).
func httpClient(caFile string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = answerTimeout
	if caFile == "" {
		return &http.Client{Transport: tr}, nil
	}
	pool, err := auth.SystemRootsWithCA(caFile)
	if err != nil {
		return nil, err
	}
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}
	return &http.Client{Transport: tr}, nil
}

// nodeClient talks to a running node over its HTTP surface.
type nodeClient struct {
	base      string
	token     string
	tokenFrom string // where the token came from (resolveToken)
	http      *http.Client
}

// errUnreachable marks a node that could not be reached at all.
var errUnreachable = errors.New("cannot reach lsnode")

// statusError is a refusal by the node: an HTTP status other than the one
// expected, with the message the node gave.
type statusError struct {
	status    int
	msg       string
	tokenFrom string // of a 401: where the token it refused came from, "" when none was sent
}

func (e *statusError) Error() string {
	switch e.status {
	case http.StatusUnauthorized:
		if e.tokenFrom != "" {
			return "401 Unauthorized: the node refused the bearer token of " + e.tokenFrom
		}
		return "401 Unauthorized: the node requires a bearer token (--token-file, LSNODE_TOKEN or MEMPALACE_MCP_HTTP_TOKEN)"
	case http.StatusForbidden:
		if e.msg == "" { // the page of a Host or Origin refusal; an agent token's refusal says why
			return "403 Forbidden: the node refused this Host or Origin"
		}
	}
	if e.msg != "" {
		return fmt.Sprintf("%d %s: %s", e.status, http.StatusText(e.status), e.msg)
	}
	return fmt.Sprintf("%d %s", e.status, http.StatusText(e.status))
}

// do sends a request and returns the response of a reachable node that
// took the token; the caller closes its body.
func (c *nodeClient) do(req *http.Request) (*http.Response, error) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("%w at %s: %v", errUnreachable, c.base, unwrapURLError(err))
	}
	if resp.StatusCode == http.StatusUnauthorized {
		resp.Body.Close()
		return nil, &statusError{status: resp.StatusCode, tokenFrom: c.tokenFrom}
	}
	return resp, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// getJSON GETs path and decodes a 200 JSON answer into v.
func (c *nodeClient) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read answer of %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return refusal(resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("answer of %s is not JSON: %w", path, err)
	}
	return nil
}

// refusal builds the error of a non-200 answer, taking the node's
// {"error": msg} text when there is one.
func refusal(status int, body []byte) error {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	msg := ""
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil {
			msg = s
		} else {
			var rpc struct{ Message string }
			_ = json.Unmarshal(e.Error, &rpc)
			msg = rpc.Message
		}
	}
	return &statusError{status: status, msg: msg}
}

// toolError is a tool that ran and refused the call: its error text.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// callTool runs one MCP tool with a bare tools/call (no initialize, as
// agents do against the Python hub) and returns the tool's JSON result.
// A refusal by the tool ({"success": false, "error": ...} or
// {"error": ...}) and a JSON-RPC error both come back as errors.
func (c *nodeClient) callTool(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
	payload, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/mcp", bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := rpcBody(resp)
	if err != nil {
		return nil, err
	}
	return toolResult(resp.StatusCode, body)
}

// rpcBody reads the JSON-RPC answer, plain JSON or the first data frame
// of an event stream.
func rpcBody(resp *http.Response) ([]byte, error) {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return io.ReadAll(resp.Body)
	}
	rd := sseclient.NewReader(resp.Body)
	for {
		f, err := rd.Next()
		if err != nil {
			return nil, fmt.Errorf("read MCP answer: %w", err)
		}
		if f.Data != "" {
			return []byte(f.Data), nil
		}
	}
}

// toolResult unpacks a tools/call answer down to the tool's result.
func toolResult(status int, body []byte) (json.RawMessage, error) {
	var rpc struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &rpc); err != nil {
		if status != http.StatusOK {
			return nil, refusal(status, body)
		}
		return nil, fmt.Errorf("MCP answer is not JSON-RPC: %w", err)
	}
	switch {
	case rpc.Error != nil:
		return nil, fmt.Errorf("MCP error %d: %s", rpc.Error.Code, rpc.Error.Message)
	case rpc.Result == nil || len(rpc.Result.Content) == 0:
		return nil, refusal(status, body)
	}
	text := rpc.Result.Content[0].Text
	var env struct {
		Success *bool   `json:"success"`
		Error   *string `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		if rpc.Result.IsError {
			return nil, &toolError{msg: text}
		}
		return nil, fmt.Errorf("tool result is not JSON: %w", err)
	}
	if env.Error != nil {
		return nil, &toolError{msg: *env.Error}
	}
	if rpc.Result.IsError || (env.Success != nil && !*env.Success) {
		return nil, &toolError{msg: text}
	}
	return json.RawMessage(text), nil
}
