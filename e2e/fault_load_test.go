//go:build e2e

package e2e

// The load of the fault tests: concurrent clients append through MCP on
// every node, and through the CLI, and record for every request what the
// server acknowledged (event id, origin, origin_seq) or refused.
//
// A request that timed out or whose connection died is UNKNOWN: it may
// have committed. Only an answered refusal (success:false, a JSON-RPC
// error, an isError result, HTTP 4xx/5xx) is FAILED. Clients with an
// idempotency key retry unknowns (and refusals) with the same key on the
// same node until one attempt is answered, so their unknowns resolve.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Load settings.
const (
	loadCallTimeout  = 4 * time.Second // one MCP append
	loadCLITimeout   = 8 * time.Second // one CLI append (a process start included)
	loadRetryBackoff = 300 * time.Millisecond
	loadAgents       = 4 // agents addressed: agent-0 .. agent-3
)

// outcome of one append request (all its attempts).
type outcome int

const (
	outUnknown outcome = iota // no attempt answered
	outAcked                  // an attempt answered success
	outFailed                 // every attempt answered a refusal
)

func (o outcome) String() string {
	return [...]string{"unknown", "acked", "failed"}[o]
}

// clientKind is how a client appends.
type clientKind string

const (
	clientPlain clientKind = "mcp"      // MCP, no idempotency key, no retry
	clientIdem  clientKind = "mcp-idem" // MCP with an idempotency key, retries
	clientCLI   clientKind = "cli"      // `lsnode events append` with a key, retries
)

// appendRecord is one logical append and what became of it.
type appendRecord struct {
	Client    int
	Kind      clientKind
	Node      int    // node index it was sent to
	Token     string // unique marker in the body: "fault-req <token>"
	FromAgent string
	ToAgent   string
	IdemKey   string
	AckOf     string // id of the event this one acks ("" for a request)
	Claim     bool   // a claim on AckOf (status claimed), which leaves it owed
	AckCorr   string // correlation id it joins instead of naming ack_of
	AckNode   int    // node the acked request was acknowledged by
	Attempts  int
	Outcome   outcome
	ID        string // the acknowledged event
	Origin    string
	OriginSeq int64
	Duplicate int      // attempts answered duplicate:true
	IDs       []string // ids of every answered attempt (all must be equal)
	Refusals  []string
	Unknowns  []string
	Sent      time.Time
}

// loadGen runs the clients.
type loadGen struct {
	c        *faultCluster
	seed     int64
	token    string
	deadln   time.Time // retries stop here
	pace     time.Duration
	mu       sync.Mutex
	records  []*appendRecord
	pool     map[string][]*appendRecord // acked requests by addressed agent, not yet acked back
	wg       sync.WaitGroup
	stopped  chan struct{}
	haltOnce sync.Once
}

// newLoadGen prepares clients; start runs them.
func newLoadGen(c *faultCluster, seed int64, pace time.Duration) *loadGen {
	return &loadGen{c: c, seed: seed, pace: pace, pool: map[string][]*appendRecord{}, stopped: make(chan struct{})}
}

// start runs per node one plain and one idempotent MCP client, plus
// cliClients CLI clients that rotate over the nodes.
func (g *loadGen) start(ctx context.Context, cliClients int) {
	id := 0
	for i := range g.c.nodes {
		for _, k := range []clientKind{clientPlain, clientIdem} {
			g.spawn(ctx, id, k, i)
			id++
		}
	}
	for j := 0; j < cliClients; j++ {
		g.spawn(ctx, id, clientCLI, j%len(g.c.nodes))
		id++
	}
}

func (g *loadGen) spawn(ctx context.Context, id int, kind clientKind, node int) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		g.client(ctx, id, kind, node)
	}()
}

// wait waits for the clients, once the caller has cancelled their
// context; keyed clients first finish their retries (setDeadline bounds
// them, halt ends them at once).
func (g *loadGen) wait() { g.wg.Wait() }

// halt ends the keyed clients' retries at once (test cleanup).
func (g *loadGen) halt() {
	g.haltOnce.Do(func() { close(g.stopped) })
}

// client appends until ctx ends.
func (g *loadGen) client(ctx context.Context, id int, kind clientKind, node int) {
	rng := rand.New(rand.NewPCG(uint64(g.seed), uint64(id)+1))
	hc := &http.Client{Timeout: loadCallTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	n := 0
	for ctx.Err() == nil {
		if kind == clientCLI {
			node = (node + 1) % len(g.c.nodes) // the CLI client rotates
		}
		rec := g.next(rng, id, kind, node, n)
		n++
		g.send(ctx, hc, rec)
		jitter := time.Duration(rng.Int64N(int64(g.pace) + 1))
		select {
		case <-ctx.Done():
		case <-time.After(g.pace/2 + jitter):
		}
	}
	hc.CloseIdleConnections()
}

// next makes the next request of client id: an ack of an acknowledged
// request addressed to an agent (about one in three), else a new request.
func (g *loadGen) next(rng *rand.Rand, id int, kind clientKind, node, n int) *appendRecord {
	rec := &appendRecord{Client: id, Kind: kind, Node: node, Token: fmt.Sprintf("c%d-%d", id, n)}
	if kind != clientPlain {
		rec.IdemKey = fmt.Sprintf("k-%d-c%d-%d", g.seed, id, n)
	}
	addressee := rng.IntN(loadAgents)
	agent := "agent-" + strconv.Itoa(addressee)
	if rng.IntN(3) == 0 {
		// One reply in four is a claim: the request stays owed and
		// ackable, and a second claim of it, sent through another node,
		// is a claim conflict every node must report alike.
		claim := rng.IntN(4) == 0
		if e := g.takeAckable(rng, agent, !claim); e != nil {
			rec.FromAgent, rec.AckOf, rec.AckNode, rec.Claim = agent, e.ID, e.Node, claim
			if rng.IntN(2) == 0 { // join by correlation id alone: owed-ness then needs the causal context
				rec.AckCorr = "corr-" + e.Token
			}
			rec.ToAgent = e.FromAgent
			if rng.IntN(2) == 0 {
				rec.ToAgent = "*"
			}
			return g.add(rec)
		}
	}
	rec.FromAgent, rec.ToAgent = fmt.Sprintf("load-%d", id), agent
	if rng.IntN(5) == 0 {
		// One request in five is between two agents, so that agents come
		// to wait on each other: wait-for cycles every node must report
		// alike.
		rec.FromAgent = "agent-" + strconv.Itoa((addressee+1+rng.IntN(loadAgents-1))%loadAgents)
	}
	return g.add(rec)
}

func (g *loadGen) add(rec *appendRecord) *appendRecord {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.records = append(g.records, rec)
	return rec
}

// takeAckable returns an acknowledged request addressed to agent, if
// there is one, and removes it from the pool when remove is set.
func (g *loadGen) takeAckable(rng *rand.Rand, agent string, remove bool) *appendRecord {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pool[agent]
	if len(p) == 0 {
		return nil
	}
	i := rng.IntN(len(p))
	e := p[i]
	if remove {
		p[i] = p[len(p)-1]
		g.pool[agent] = p[:len(p)-1]
	}
	return e
}

// stream is where a record's events go: one stream per client and minute,
// so that each (agent, stream) owed set stays well under the 500 limit.
func (g *loadGen) stream(rec *appendRecord) string {
	return fmt.Sprintf("fault/c%d/m%d", rec.Client, time.Since(g.c.started)/time.Minute)
}

// args are the tool arguments of rec.
func (g *loadGen) args(rec *appendRecord, stream string) map[string]any {
	a := map[string]any{
		"stream": stream, "room": "fault", "from_agent": rec.FromAgent, "to_agent": rec.ToAgent,
		"body": "fault-req " + rec.Token,
	}
	if rec.AckOf == "" {
		a["type"], a["status"], a["correlation_id"] = "task.request", "open", "corr-"+rec.Token
	} else {
		a["type"], a["status"] = "task.result", "applied"
		if rec.Claim {
			a["type"], a["status"] = "task.claim", "claimed"
		}
		if rec.AckCorr != "" {
			a["correlation_id"] = rec.AckCorr
		} else {
			a["metadata"] = map[string]any{"ack_of": rec.AckOf}
		}
	}
	if rec.IdemKey != "" {
		a["idempotency_key"] = rec.IdemKey
	}
	return a
}

// send makes the attempts of rec and records its outcome.
func (g *loadGen) send(ctx context.Context, hc *http.Client, rec *appendRecord) {
	stream := g.stream(rec)
	args := g.args(rec, stream)
	for {
		rec.Attempts++
		if rec.Sent.IsZero() {
			rec.Sent = time.Now()
		}
		var res attemptResult
		if rec.Kind == clientCLI {
			res = g.cliAppend(rec, args)
		} else {
			res = mcpAppend(hc, g.c.nodes[rec.Node].URL(), g.token, args)
		}
		g.record(rec, res)
		if res.out == outAcked || rec.IdemKey == "" {
			break
		}
		// Keyed clients retry until answered, after the load's end too,
		// up to the retry deadline.
		if time.Now().After(g.deadline()) {
			break
		}
		select {
		case <-time.After(loadRetryBackoff):
		case <-g.stopped:
			return
		}
	}
	if rec.Outcome == outAcked && rec.AckOf == "" {
		g.mu.Lock()
		g.pool[rec.ToAgent] = append(g.pool[rec.ToAgent], rec)
		g.mu.Unlock()
	}
}

func (g *loadGen) deadline() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.deadln.IsZero() {
		return time.Now().Add(time.Hour)
	}
	return g.deadln
}

// setDeadline bounds the retries of the keyed clients.
func (g *loadGen) setDeadline(t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deadln = t
}

// record folds one attempt's result into rec.
func (g *loadGen) record(rec *appendRecord, res attemptResult) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch res.out {
	case outAcked:
		rec.IDs = append(rec.IDs, res.id)
		if rec.Outcome != outAcked {
			rec.ID, rec.Origin, rec.OriginSeq = res.id, res.origin, res.originSeq
		}
		rec.Outcome = outAcked
		if res.duplicate {
			rec.Duplicate++
		}
	case outFailed:
		rec.Refusals = append(rec.Refusals, res.detail)
		if rec.Outcome == outUnknown && len(rec.Unknowns) == 0 {
			rec.Outcome = outFailed
		}
	case outUnknown:
		rec.Unknowns = append(rec.Unknowns, res.detail)
		if rec.Outcome == outFailed {
			rec.Outcome = outUnknown // an earlier refusal no longer settles it
		}
	}
}

// snapshot returns the records (after the clients stopped).
func (g *loadGen) snapshot() []*appendRecord {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*appendRecord(nil), g.records...)
}

// attemptResult is what one attempt was told.
type attemptResult struct {
	out       outcome
	id        string
	origin    string
	originSeq int64
	duplicate bool
	detail    string
}

// appendAnswer is the tool result of mempalace_event_append.
type appendAnswer struct {
	Success   bool   `json:"success"`
	Error     string `json:"error"`
	Duplicate bool   `json:"duplicate"`
	Event     struct {
		ID            string `json:"id"`
		OriginReplica string `json:"origin_replica"`
		OriginSeq     int64  `json:"origin_seq"`
	} `json:"event"`
}

// mcpAppend POSTs one bare tools/call of mempalace_event_append and
// classifies the answer.
func mcpAppend(hc *http.Client, base, token string, args map[string]any) attemptResult {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "mempalace_event_append", "arguments": args},
	})
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(body))
	if err != nil {
		return attemptResult{out: outUnknown, detail: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return attemptResult{out: outUnknown, detail: "request: " + err.Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return attemptResult{out: outUnknown, detail: fmt.Sprintf("HTTP %d, body cut: %v", resp.StatusCode, err)}
	}
	if resp.StatusCode != http.StatusOK {
		return attemptResult{out: outFailed, detail: fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode, raw)}
	}
	return classifyRPC(raw)
}

// classifyRPC reads a JSON-RPC answer to a tools/call of event_append.
func classifyRPC(raw []byte) attemptResult {
	var rpc struct {
		Result *struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &rpc); err != nil {
		return attemptResult{out: outUnknown, detail: fmt.Sprintf("undecodable 200: %v: %.200s", err, raw)}
	}
	switch {
	case rpc.Error != nil:
		return attemptResult{out: outFailed, detail: fmt.Sprintf("JSON-RPC %d: %s", rpc.Error.Code, rpc.Error.Message)}
	case rpc.Result == nil || len(rpc.Result.Content) == 0:
		return attemptResult{out: outUnknown, detail: fmt.Sprintf("no result: %.200s", raw)}
	case rpc.Result.IsError:
		return attemptResult{out: outFailed, detail: fmt.Sprintf("isError: %.200s", rpc.Result.Content[0].Text)}
	}
	return classifyAnswer([]byte(rpc.Result.Content[0].Text))
}

// classifyAnswer reads the tool's JSON answer (MCP text or CLI --json).
func classifyAnswer(text []byte) attemptResult {
	var a appendAnswer
	if err := json.Unmarshal(text, &a); err != nil {
		return attemptResult{out: outUnknown, detail: fmt.Sprintf("undecodable answer: %v: %.200s", err, text)}
	}
	if !a.Success {
		return attemptResult{out: outFailed, detail: "success:false: " + a.Error}
	}
	if a.Event.ID == "" || a.Event.OriginReplica == "" || a.Event.OriginSeq <= 0 {
		return attemptResult{out: outUnknown, detail: fmt.Sprintf("success without an event: %.200s", text)}
	}
	return attemptResult{out: outAcked, id: a.Event.ID, origin: a.Event.OriginReplica,
		originSeq: a.Event.OriginSeq, duplicate: a.Duplicate}
}

// cliAppend runs `lsnode events append --json` against rec's node. The
// CLI's exit code does not tell a refusal from a lost connection, so a
// non-zero exit is unknown; the client's key makes a retry safe.
func (g *loadGen) cliAppend(rec *appendRecord, args map[string]any) attemptResult {
	ctx, cancel := context.WithTimeout(context.Background(), loadCLITimeout)
	defer cancel()
	cli := []string{"events", "append", "--json", "--addr", g.c.nodes[rec.Node].URL(),
		"--type", args["type"].(string), "--stream", args["stream"].(string), "--room", "fault",
		"--from", rec.FromAgent, "--to", rec.ToAgent, "--body", args["body"].(string),
		"--status", args["status"].(string), "--idempotency-key", rec.IdemKey}
	if c, ok := args["correlation_id"].(string); ok {
		cli = append(cli, "--correlation-id", c)
	}
	if m, ok := args["metadata"]; ok {
		b, _ := json.Marshal(m)
		cli = append(cli, "--metadata", string(b))
	}
	cmd := exec.CommandContext(ctx, g.c.bin, cli...)
	cmd.Env = cleanEnv()
	if g.token != "" {
		cmd.Env = append(cmd.Env, "LSNODE_TOKEN="+g.token)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return classifyAnswer(out.Bytes())
	case errors.As(err, &ee):
		return attemptResult{out: outUnknown, detail: fmt.Sprintf("cli exit %d: %s", ee.ExitCode(), strings.TrimSpace(errb.String()))}
	}
	return attemptResult{out: outUnknown, detail: "cli: " + err.Error()}
}
