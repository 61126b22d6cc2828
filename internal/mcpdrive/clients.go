package mcpdrive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	mark3client "github.com/mark3labs/mcp-go/client"
	mark3transport "github.com/mark3labs/mcp-go/client/transport"
	mark3 "github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Result is one tool result as a client received it.
type Result struct {
	Text       string
	Structured json.RawMessage // nil when the result carries none
	IsError    bool
}

// Tool is one tools/list entry: its name and output schema (nil when
// the list shows none).
type Tool struct {
	Name         string
	OutputSchema json.RawMessage
}

// Client is one MCP client connected to a node. A JSON-RPC error comes
// back as an error whose text holds the server's message.
type Client interface {
	// Name names the client in failures.
	Name() string
	// Version is the protocol version the client and the node agreed on;
	// "" for the hub's bare client.
	Version() string
	Tools(ctx context.Context) ([]Tool, error)
	Call(ctx context.Context, tool string, args map[string]any) (Result, error)
	// Templates are the URI templates of resources/templates/list.
	Templates(ctx context.Context) ([]string, error)
	// Read is the text of a resource's one content.
	Read(ctx context.Context, uri string) (string, error)
	Close() error
}

// bearer adds the token to every request of an http.Client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// goSDK is the official go-sdk client.
type goSDK struct {
	name    string
	session *gosdk.ClientSession
}

// NewGoSDK connects the go-sdk client to url with token, proposing
// protocol version (the sessionless 2026-07-28 probes server/discover;
// an initialize era runs the handshake).
func NewGoSDK(ctx context.Context, url, token, version string) (Client, error) {
	client := gosdk.NewClient(&gosdk.Implementation{Name: "mcpdrive-gosdk", Version: "1"}, nil)
	transport := &gosdk.StreamableClientTransport{
		Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
	}
	session, err := client.Connect(ctx, transport, &gosdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, fmt.Errorf("go-sdk connect (%s): %w", version, err)
	}
	return &goSDK{name: "go-sdk " + version, session: session}, nil
}

func (c *goSDK) Name() string    { return c.name }
func (c *goSDK) Version() string { return c.session.InitializeResult().ProtocolVersion }
func (c *goSDK) Close() error    { return c.session.Close() }

func (c *goSDK) Tools(ctx context.Context) ([]Tool, error) {
	res, err := c.session.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []Tool
	for _, t := range res.Tools {
		tool := Tool{Name: t.Name}
		if t.OutputSchema != nil {
			tool.OutputSchema, _ = json.Marshal(t.OutputSchema) // a decoded schema encodes
		}
		out = append(out, tool)
	}
	return out, nil
}

func (c *goSDK) Call(ctx context.Context, tool string, args map[string]any) (Result, error) {
	res, err := c.session.CallTool(ctx, &gosdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return Result{}, err
	}
	if len(res.Content) != 1 {
		return Result{}, fmt.Errorf("%d contents", len(res.Content))
	}
	text, ok := res.Content[0].(*gosdk.TextContent)
	if !ok {
		return Result{}, fmt.Errorf("content %T", res.Content[0])
	}
	out := Result{Text: text.Text, IsError: res.IsError}
	if res.StructuredContent != nil {
		out.Structured, _ = json.Marshal(res.StructuredContent) // decoded JSON encodes
	}
	return out, nil
}

func (c *goSDK) Templates(ctx context.Context) ([]string, error) {
	res, err := c.session.ListResourceTemplates(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range res.ResourceTemplates {
		out = append(out, t.URITemplate)
	}
	return out, nil
}

func (c *goSDK) Read(ctx context.Context, uri string) (string, error) {
	res, err := c.session.ReadResource(ctx, &gosdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		return "", fmt.Errorf("contents %+v", res.Contents)
	}
	return res.Contents[0].Text, nil
}

// mark3 is github.com/mark3labs/mcp-go's streamable HTTP client.
type mark3Client struct {
	client  *mark3client.Client
	version string
	log     *LogBuffer
}

// NewMark3 connects mark3labs/mcp-go's client to url with token, with
// continuous listening on (it opens the GET stream a server may offer)
// and its log kept in log.
func NewMark3(ctx context.Context, url, token string, log *LogBuffer) (Client, error) {
	c, err := mark3client.NewStreamableHttpClient(url,
		mark3transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}),
		//lint:ignore SA1019 continuous listening (the GET stream of the initialize eras) is the configuration under test
		mark3transport.WithContinuousListening(),
		mark3transport.WithHTTPLogger(slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))),
	)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("mark3 start: %w", err)
	}
	init, err := c.Initialize(ctx, mark3.InitializeRequest{Params: mark3.InitializeParams{
		ClientInfo: mark3.Implementation{Name: "mcpdrive-mark3", Version: "1"},
	}})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("mark3 initialize: %w", err)
	}
	return &mark3Client{client: c, version: init.ProtocolVersion, log: log}, nil
}

func (c *mark3Client) Name() string    { return "mark3labs/mcp-go" }
func (c *mark3Client) Version() string { return c.version }
func (c *mark3Client) Close() error    { return c.client.Close() }

func (c *mark3Client) Tools(ctx context.Context) ([]Tool, error) {
	res, err := c.client.ListTools(ctx, mark3.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	var out []Tool
	for _, t := range res.Tools {
		raw, _ := json.Marshal(t) // a decoded tool encodes
		var schema struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		_ = json.Unmarshal(raw, &schema)
		out = append(out, Tool{Name: t.Name, OutputSchema: schema.OutputSchema})
	}
	return out, nil
}

func (c *mark3Client) Call(ctx context.Context, tool string, args map[string]any) (Result, error) {
	var req mark3.CallToolRequest
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.client.CallTool(ctx, req)
	if err != nil {
		return Result{}, err
	}
	if len(res.Content) != 1 {
		return Result{}, fmt.Errorf("%d contents", len(res.Content))
	}
	text, ok := res.Content[0].(mark3.TextContent)
	if !ok {
		return Result{}, fmt.Errorf("content %T", res.Content[0])
	}
	return Result{Text: text.Text, Structured: res.RawStructuredContent, IsError: res.IsError}, nil
}

func (c *mark3Client) Templates(ctx context.Context) ([]string, error) {
	res, err := c.client.ListResourceTemplates(ctx, mark3.ListResourceTemplatesRequest{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range res.ResourceTemplates {
		raw, _ := json.Marshal(t) // a decoded template encodes
		var tmpl struct {
			URITemplate string `json:"uriTemplate"`
		}
		_ = json.Unmarshal(raw, &tmpl)
		out = append(out, tmpl.URITemplate)
	}
	return out, nil
}

func (c *mark3Client) Read(ctx context.Context, uri string) (string, error) {
	var req mark3.ReadResourceRequest
	req.Params.URI = uri
	res, err := c.client.ReadResource(ctx, req)
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		return "", fmt.Errorf("%d contents", len(res.Contents))
	}
	text, ok := res.Contents[0].(mark3.TextResourceContents)
	if !ok || text.MIMEType != "application/json" {
		return "", fmt.Errorf("contents %+v", res.Contents[0])
	}
	return text.Text, nil
}

// raw is a client of hand-written JSON-RPC POSTs: the hub's bare client
// (no initialize, Accept: application/json, no version) or, with a
// version, one that names it in MCP-Protocol-Version.
type raw struct {
	url, token, version string
	http                *http.Client
}

// NewRaw is the hub-shaped client of url with token; version "" is the
// hub's bare client.
func NewRaw(url, token, version string) Client {
	return &raw{url: url, token: token, version: version, http: &http.Client{}}
}

func (c *raw) Name() string {
	if c.version == "" {
		return "bare JSON-RPC"
	}
	return "raw JSON-RPC " + c.version
}
func (c *raw) Version() string { return c.version }
func (c *raw) Close() error    { c.http.CloseIdleConnections(); return nil }

// rpc posts one request and decodes its result into out.
func (c *raw) rpc(ctx context.Context, method string, params any, out any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if c.version != "" {
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		return fmt.Errorf("HTTP %d: %q: %w", resp.StatusCode, data, err)
	}
	if reply.Error != nil {
		return fmt.Errorf("JSON-RPC error %d: %s", reply.Error.Code, reply.Error.Message)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		return fmt.Errorf("HTTP %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	return json.Unmarshal(reply.Result, out)
}

func (c *raw) Tools(ctx context.Context) ([]Tool, error) {
	var res struct {
		Tools []struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := c.rpc(ctx, "tools/list", nil, &res); err != nil {
		return nil, err
	}
	var out []Tool
	for _, t := range res.Tools {
		out = append(out, Tool{Name: t.Name, OutputSchema: t.OutputSchema})
	}
	return out, nil
}

func (c *raw) Call(ctx context.Context, tool string, args map[string]any) (Result, error) {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := c.rpc(ctx, "tools/call", map[string]any{"name": tool, "arguments": args}, &res); err != nil {
		return Result{}, err
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		return Result{}, fmt.Errorf("contents %+v", res.Content)
	}
	return Result{Text: res.Content[0].Text, Structured: res.StructuredContent, IsError: res.IsError}, nil
}

func (c *raw) Templates(ctx context.Context) ([]string, error) {
	var res struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	if err := c.rpc(ctx, "resources/templates/list", nil, &res); err != nil {
		return nil, err
	}
	var out []string
	for _, t := range res.ResourceTemplates {
		out = append(out, t.URITemplate)
	}
	return out, nil
}

func (c *raw) Read(ctx context.Context, uri string) (string, error) {
	var res struct {
		Contents []struct {
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"contents"`
	}
	if err := c.rpc(ctx, "resources/read", map[string]any{"uri": uri}, &res); err != nil {
		return "", err
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		return "", fmt.Errorf("contents %+v", res.Contents)
	}
	return res.Contents[0].Text, nil
}

// LogBuffer keeps a client's log lines, safe for concurrent writes.
type LogBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// errContains reports whether err is an error whose text holds want.
func errContains(err error, want string) bool {
	return err != nil && strings.Contains(err.Error(), want)
}
