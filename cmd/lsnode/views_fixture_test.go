package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node"
	"github.com/lsnode/lsnode/store"
)

// viewsT0 is when the views fixture writes its first event; its node's
// clock then stands at viewsNow.
var (
	viewsT0  = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	viewsNow = viewsT0.Add(10 * time.Minute)
)

// viewsFixture is an in-process node holding a log for the coordination
// views: a wait-for cycle of three agents (ann asks ben, ben asks cat,
// cat asks ann, a minute apart), an ask boss wrote to w that w claimed
// through a second replica and then through this node (a claim
// conflict), and a note dave wrote in another stream. Every event but
// boss's ask and w's claims says "rotate". A claim is addressed to the
// asker and closes nothing, so boss owes w both claims: boss and w wait
// on each other too.
type viewsFixture struct {
	node *node.Node
	addr string // the --addr flag
	// Token files: the shared token, and ann's agent token (its mailbox).
	shared, ann string
	// The events by name: annAsk, benAsk, catAsk, note, bossAsk, and w's
	// claims claimOther and claimNode.
	ids map[string]string
	// other is the second replica's id.
	other string
}

const (
	viewsSharedToken = "views-shared-token"
	viewsAnnToken    = "views-ann-token"
)

func startViewsNode(t *testing.T) *viewsFixture {
	t.Helper()
	clearClientEnv(t)
	dir := t.TempDir()
	tokens := writeFile(t, dir, "tokens.json", `{"tokens": [{"token": "`+viewsAnnToken+`", "name": "ann", "write_as": ["ann"]}]}`)
	wall := hlc.NewManualClock(viewsT0)
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.HTTP.Addr, cfg.Wall = filepath.Join(dir, "data"), "127.0.0.1:0", wall
	cfg.Auth.Token, cfg.Auth.TokensFile = viewsSharedToken, tokens
	n := startNodeWith(t, cfg)
	f := &viewsFixture{
		node: n, addr: "--addr=" + n.URL(), ids: map[string]string{},
		shared: writeFile(t, dir, "shared.token", viewsSharedToken), ann: writeFile(t, dir, "ann.token", viewsAnnToken),
	}
	st := n.Store()
	add := func(name string, in store.AppendInput) {
		t.Helper()
		w, err := st.Append(context.Background(), in)
		if err != nil {
			t.Fatalf("append %s: %v", name, err)
		}
		f.ids[name] = w.Event.ID
	}
	ask := func(from, to, body string) store.AppendInput {
		return store.AppendInput{Type: "task.request", Stream: "project/x", Room: "delegation", FromAgent: from, ToAgent: to, Body: body}
	}
	add("annAsk", ask("ann", "ben", "rotate the signing keys"))
	wall.Advance(time.Minute)
	add("benAsk", ask("ben", "cat", "review the rotate script"))
	wall.Advance(time.Minute)
	add("catAsk", ask("cat", "ann", "deploy after rotate"))
	add("note", store.AppendInput{Type: "note", Stream: "project/y", Room: "ops", FromAgent: "dave", Body: "rotate logs, rotate often"})
	bossAsk := ask("boss", "w", "ship the release")
	bossAsk.CorrelationID = "rel-1"
	add("bossAsk", bossAsk)
	f.claimTwice(t, wall)
	wall.Set(viewsNow)
	return f
}

// claimTwice makes w claim boss's ask through a second replica, then
// through the node, and brings the second replica's claim to the node.
func (f *viewsFixture) claimTwice(t *testing.T, wall *hlc.ManualClock) {
	t.Helper()
	ctx := context.Background()
	st := f.node.Store()
	other, err := store.Open(ctx, store.Config{Dir: t.TempDir(), Wall: wall})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	f.other = other.ReplicaID()
	copyOps(t, st, other)
	for _, through := range []struct {
		name string
		st   *store.Store
	}{{"claimOther", other}, {"claimNode", st}} {
		wall.Advance(time.Second)
		w, err := through.st.Ack(ctx, store.AckInput{EventID: f.ids["bossAsk"], FromAgent: "w", Status: "claimed"})
		if err != nil {
			t.Fatal(err)
		}
		f.ids[through.name] = w.Event.ID
	}
	copyOps(t, other, st)
}

// copyOps applies to every op from holds and to lacks.
func copyOps(t *testing.T, from, to *store.Store) {
	t.Helper()
	ctx := context.Background()
	for origin := range from.VersionVector() {
		ops, err := from.OpsAfter(ctx, origin, to.VersionVector()[origin], 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := to.ApplyBatch(ctx, store.Batch{Ops: ops})
		if err != nil || res.Applied != len(ops) {
			t.Fatalf("apply %d ops of %s: %+v, %v", len(ops), origin, res, err)
		}
	}
}

// run runs an lsnode command against the fixture's node with the token
// of tokenFile.
func (f *viewsFixture) run(t *testing.T, tokenFile string, args ...string) (int, string, string) {
	t.Helper()
	return cli(t, append(args, f.addr, "--token-file="+tokenFile)...)
}

// cursorPattern matches a portable cursor.
var cursorPattern = regexp.MustCompile(`c1\.[A-Za-z0-9_-]+`)

// named replaces what differs from run to run in s: the fixture's event
// ids by their names (<annAsk>), the replica ids by <node> and <other>,
// cursors by <cursor>.
func (f *viewsFixture) named(s string) string {
	for name, id := range f.ids {
		s = strings.ReplaceAll(s, id, "<"+name+">")
	}
	s = strings.ReplaceAll(s, f.node.Store().ReplicaID(), "<node>")
	s = strings.ReplaceAll(s, f.other, "<other>")
	return cursorPattern.ReplaceAllString(s, "<cursor>")
}

// tableOf splits a command's output at its first blank line into the
// table's rows, as cells (columns are two or more spaces apart), and the
// lines after it.
func tableOf(out string) (rows [][]string, trailer []string) {
	head, tail, _ := strings.Cut(out, "\n\n")
	for _, line := range strings.Split(strings.TrimRight(head, "\n"), "\n") {
		rows = append(rows, columnGapPattern.Split(strings.TrimRight(line, " "), -1))
	}
	if tail = strings.TrimRight(tail, "\n"); tail != "" {
		trailer = strings.Split(tail, "\n")
	}
	return rows, trailer
}

var columnGapPattern = regexp.MustCompile(` {2,}`)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
