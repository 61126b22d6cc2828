package lssync_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/simnet"
)

// simAgents are the agents events are addressed to, so owed sets matter.
// Every node writes as any of them, so one name claims an ask through
// several replicas now and then: claim conflicts matter too.
var simAgents = []string{"ana@1", "bo@2", "cy@3"}

// simWords are added to the bodies, so searches find some events.
var simWords = []string{"deploy", "rollback", "staging", "release", "hotfix"}

// simReplies are the statuses of the acks the nodes write: answers,
// claims and progress.
var simReplies = []string{"applied", "claimed", "claimed", "ready"}

// storeLog is a real store.Store driven by the simulation.
type storeLog struct {
	feedLog
	st  *store.Store
	rng *rand.Rand
}

func (s storeLog) appendEvent(body string, artifact bool) (store.Event, error) {
	ctx := context.Background()
	from := simAgents[s.rng.IntN(len(simAgents))]
	if !artifact && s.rng.IntN(3) == 0 {
		if owed, err := s.st.Owed(ctx, from, "", 50); err == nil && len(owed) > 0 {
			w, err := s.st.Ack(ctx, store.AckInput{EventID: owed[s.rng.IntN(len(owed))].ID, FromAgent: from,
				Status: simReplies[s.rng.IntN(len(simReplies))]})
			return w.Event, err
		}
	}
	in := store.AppendInput{
		Type: "task.request", Stream: "sim", Room: "main", FromAgent: from,
		ToAgent: simAgents[s.rng.IntN(len(simAgents))], Body: body + " " + simWords[s.rng.IntN(len(simWords))],
	}
	if artifact {
		w, err := s.st.PutArtifact(ctx, store.ArtifactInput{Kind: "note", Content: body, CreatedBy: from})
		if err != nil {
			return store.Event{}, err
		}
		in.ArtifactIDs = []string{w.Artifact.ID}
	}
	w, err := s.st.Append(ctx, in)
	return w.Event, err
}

func (s storeLog) putArtifact(content string) (string, error) {
	w, err := s.st.PutArtifact(context.Background(), store.ArtifactInput{Kind: "note", Content: content, CreatedBy: "sim"})
	if err != nil {
		return "", err
	}
	return w.Artifact.ID, nil
}

// artifactIDs lists the artifacts held, by feed, sorted.
func (s storeLog) artifactIDs() ([]string, error) {
	var ids []string
	after := int64(0)
	for {
		page, err := s.st.ArtifactFeedAfter(context.Background(), after, 500)
		if err != nil || len(page) == 0 {
			slices.Sort(ids)
			return ids, err
		}
		for _, e := range page {
			ids = append(ids, e.ID)
			after = e.Seq
		}
	}
}

func (s storeLog) opsOf(origin string) ([]store.Op, error) {
	var out []store.Op
	after := int64(0)
	for {
		ops, err := s.st.OpsAfter(context.Background(), origin, after, 500, 0)
		if err != nil || len(ops) == 0 {
			return out, err
		}
		out = append(out, ops...)
		after = ops[len(ops)-1].Event.OriginSeq
	}
}

func (s storeLog) quarantined() ([]string, error) {
	q, err := s.st.Quarantine(context.Background(), 100)
	var out []string
	for _, e := range q {
		out = append(out, e.ItemID+": "+e.Reason)
	}
	return out, err
}

func (s storeLog) close() error { return s.st.Close() }

type simWall struct {
	net  *simnet.Network
	name string
}

func (w simWall) Now() time.Time { return w.net.NodeNow(w.name) }

// storeLogs opens (or reopens) a store per node in dir, on the node's
// simulated wall clock.
func storeLogs(t *testing.T, dir string, seed uint64) logFactory {
	return func(net *simnet.Network, name string) (simLog, error) {
		st, err := store.Open(context.Background(), store.Config{
			Dir: filepath.Join(dir, name), ReplicaID: name, Wall: simWall{net, name},
		})
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { st.Close() })
		return storeLog{feedLog: lssync.StoreLog(st).(feedLog), st: st, rng: rand.New(rand.NewPCG(seed, uint64(len(name))))}, nil
	}
}

// TestSimulation_Stores runs the simulation over real stores (restarts
// close and reopen them) and checks, on top of the op sets, that every
// node derives the same views: the owed set of every agent, and the
// coordination views (awaiting, claims and their conflicts, wait-for
// cycles, search results and scores).
func TestSimulation_Stores(t *testing.T) {
	seeds := []uint64{1, 2, 3, 42}
	if *simSeed != 0 {
		seeds = []uint64{*simSeed}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			sc := newScenario(seed, storeLogs(t, t.TempDir(), seed))
			sc.reopen = true
			sc.steps = 150
			replay := fmt.Sprintf("seed %d (replay: go test ./sync -run TestSimulation_Stores -sim.seed=%d)", seed, seed)
			if err := sc.run(); err != nil {
				t.Fatalf("%s: %v", replay, err)
			}
			if err := sc.verify(); err != nil {
				t.Fatalf("%s: %v", replay, err)
			}
			if err := sc.verifyOwed(); err != nil {
				t.Fatalf("%s: %v", replay, err)
			}
			if err := sc.verifyViews(); err != nil {
				t.Fatalf("%s: %v", replay, err)
			}
			t.Logf("%s", sc.summary())
		})
	}
}

func (sc *scenario) verifyOwed() error {
	for _, agent := range simAgents {
		var want []string
		for i, name := range sc.names {
			owed, err := sc.logs[name].(storeLog).st.Owed(context.Background(), agent, "", 500)
			if err != nil {
				return err
			}
			ids := make([]string, len(owed))
			for j, e := range owed {
				ids[j] = e.ID
			}
			if i == 0 {
				want = ids
			} else if !slices.Equal(ids, want) {
				return fmt.Errorf("owed(%s) on %s = %v, on %s = %v", agent, name, ids, sc.names[0], want)
			}
		}
	}
	return nil
}

// verifyViews checks that every node answers the coordination views as
// the first one does.
func (sc *scenario) verifyViews() error {
	var want string
	for i, name := range sc.names {
		got, err := viewsOf(sc.logs[name].(storeLog).st)
		if err != nil {
			return err
		}
		if i == 0 {
			want = got
		} else if got != want {
			return fmt.Errorf("views on %s differ from %s:\n%s", name, sc.names[0], firstLineDiff(got, want))
		}
	}
	return nil
}

// viewsOf renders a store's coordination views for simAgents, without
// ages (measured against each node's clock).
func viewsOf(st *store.Store) (string, error) {
	ctx := context.Background()
	var b strings.Builder
	line := func(a store.Ask) string {
		out := a.Event.ID + " " + a.Status()
		if c := a.Claim; c != nil {
			out += fmt.Sprintf(" claim=%s/%s/%s conflict=%v %v", c.By, c.From, c.EventID, c.Conflict, c.Replicas)
		}
		return out
	}
	for _, agent := range simAgents {
		owed, err := st.OwedAsks(ctx, nil, agent, "", store.MaxViewLimit)
		if err != nil {
			return "", err
		}
		for _, a := range owed {
			fmt.Fprintf(&b, "owed %s %s\n", agent, line(a))
		}
		awaited, err := st.Awaiting(ctx, store.AwaitingQuery{Agent: agent, Limit: store.MaxViewLimit})
		if err != nil {
			return "", err
		}
		for _, a := range awaited {
			fmt.Fprintf(&b, "awaiting %s %s heard=%s\n", agent, line(a.Ask), a.LastHeard)
		}
	}
	conflicts, err := st.ClaimConflicts(ctx, nil)
	if err != nil {
		return "", err
	}
	for _, a := range conflicts {
		fmt.Fprintf(&b, "conflict %s\n", line(a))
	}
	cycles, err := st.Cycles(ctx, store.CycleQuery{})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "cycles %+v truncated=%v\n", cycles.Cycles, cycles.Truncated)
	for _, q := range []string{"deploy", "rollback OR hotfix", "release NOT staging", "from_agent:ana"} {
		res, err := st.Search(ctx, store.SearchQuery{Query: q, Filter: store.Filter{Limit: store.MaxViewLimit}})
		if err != nil {
			return "", err
		}
		for _, h := range res.Hits {
			fmt.Fprintf(&b, "search %q %s %v\n", q, h.Event.ID, h.Score)
		}
	}
	return b.String(), nil
}

// firstLineDiff shows the first line where two renderings differ.
func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(la), len(lb))
}
