package node

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lsnode/lsnode/node/internal/nodetest"
)

// readmeURL and readmeToken are what README.md's quickstart writes for
// the node's MCP URL and the token's contents.
const (
	readmeURL   = "http://127.0.0.1:8765/mcp"
	readmeToken = "<contents of lsnode-token>"
)

// TestReadmeMCPQuickstart reads the MCP quickstart out of README.md and
// uses it against a running node with a token, so that the docs cannot
// rot: the mcpServers snippet's URL and header connect the official
// client, the command-line form names the same URL and header, the curl
// call gets an answer of the shape README shows, and the request without
// the header gets the 401 README describes.
func TestReadmeMCPQuickstart(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	n := htStart(t, func(c *Config) { c.Auth.Token = nodetest.SharedToken })
	url := strings.Replace(readmeURL, "http://127.0.0.1:8765", n.URL(), 1)

	var config struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(codeBlock(t, text, "json", `"mcpServers"`)), &config); err != nil {
		t.Fatalf("the mcpServers snippet: %v", err)
	}
	server, ok := config.MCPServers["lsnode"]
	if !ok || server.Type != "http" || server.URL != readmeURL {
		t.Fatalf("the mcpServers snippet: %+v", config)
	}
	auth := strings.Replace(server.Headers["Authorization"], readmeToken, nodetest.SharedToken, 1)

	cli := codeBlock(t, text, "sh", "claude mcp add")
	if !strings.Contains(cli, " "+readmeURL+" ") || !strings.Contains(cli, `--header "Authorization: Bearer $(cat lsnode-token)"`) ||
		server.Headers["Authorization"] != "Bearer "+readmeToken {
		t.Fatalf("the command-line form does not name the snippet's URL and header:\n%s", cli)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := gosdk.NewClient(&gosdk.Implementation{Name: "readme", Version: "1"}, nil)
	session, err := client.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headerTransport{"Authorization": auth}}}, nil)
	if err != nil {
		t.Fatalf("connect with the snippet's URL and header: %v", err)
	}
	defer session.Close()
	if tools, err := session.ListTools(ctx, nil); err != nil || len(tools.Tools) != 12 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}

	// The curl call, with the headers it shows, and the answer README
	// shows: the same members in the same order, the same values but
	// those a node makes up (ids, stamps, times).
	call := codeBlock(t, text, "sh", "curl -sS -X POST")
	body := regexp.MustCompile(`-d '([^']*)'`).FindStringSubmatch(call)
	if body == nil {
		t.Fatalf("no body in the curl call:\n%s", call)
	}
	header := http.Header{}
	for _, h := range regexp.MustCompile(`-H ["']([^"']*)["']`).FindAllStringSubmatch(call, -1) {
		k, v, _ := strings.Cut(h[1], ": ")
		header.Set(k, strings.Replace(v, "$(cat lsnode-token)", nodetest.SharedToken, 1))
	}
	status, _, got := post(t, url, header, body[1])
	if status != http.StatusOK {
		t.Fatalf("the curl call: %d %s", status, got)
	}
	want := codeBlock(t, text, "json", `"jsonrpc":"2.0"`)
	if g, w := eventAnswer(t, got), eventAnswer(t, want); !slices.Equal(g, w) {
		t.Fatalf("the curl call's answer\n%v\nREADME shows\n%v", g, w)
	}

	header.Del("Authorization")
	status, got401, _ := post(t, url, header, body[1])
	if challenge := got401.Get("WWW-Authenticate"); status != http.StatusUnauthorized ||
		!strings.Contains(strings.ReplaceAll(text, "\n", " "), "`WWW-Authenticate: "+challenge+"`") {
		t.Fatalf("without the header: %d, WWW-Authenticate %q, not as README describes it", status, challenge)
	}
}

// codeBlock is the first fenced block of language lang in text that
// holds marker.
func codeBlock(t *testing.T, text, lang, marker string) string {
	t.Helper()
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], marker) {
			return m[1]
		}
	}
	t.Fatalf("README.md has no %s block with %s", lang, marker)
	return ""
}

// eventAnswer lists an event_append answer's text as key=value lines in
// order, the values a node makes up blanked.
func eventAnswer(t *testing.T, answer string) []string {
	t.Helper()
	var rpc struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &rpc); err != nil || len(rpc.Result.Content) != 1 {
		t.Fatalf("answer %s: %v", answer, err)
	}
	var lines []string
	for _, line := range strings.Split(rpc.Result.Content[0].Text, "\n") {
		key, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch key {
		case `"id"`, `"origin_replica"`, `"hlc"`, `"created_at"`:
			line = key
		}
		lines = append(lines, line)
	}
	return lines
}

func post(t *testing.T, url string, header http.Header, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(out)
}

// headerTransport adds its headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
