package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// helperEnv switches the test binary into the helper test that
// killMidLoad runs (TestHelperAppendLoop, TestHelperApplyLoop); its value
// is the data dir.
const helperEnv = "LSNODE_STORE_HELPER_DIR"

// helperStore is the store a helper test writes to in its child process:
// the data dir of helperEnv, with replica's id. Without helperEnv the
// helper is skipped (it runs only as the child of parent); a store that
// does not open ends the child with exit status 2.
func helperStore(t *testing.T, replica, parent string) *Store {
	t.Helper()
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process for " + parent)
	}
	s, err := Open(context.Background(), Config{Dir: dir, ReplicaID: replica})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	return s
}

// TestHelperAppendLoop is not a test: run by TestDurability_KillNine as a
// child process, it appends from 8 goroutines until killed and prints each
// acknowledged event id on its own line, written straight to stdout.
func TestHelperAppendLoop(t *testing.T) {
	s := helperStore(t, repA, "TestDurability_KillNine")
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				w, err := s.Append(context.Background(), AppendInput{Type: "note", Stream: "s", Room: "r",
					FromAgent: fmt.Sprintf("g%d", g), ToAgent: "x", Body: strings.Repeat("b", i%300)})
				if err != nil {
					fmt.Fprintln(os.Stderr, "append:", err)
					os.Exit(3)
				}
				mu.Lock()
				os.Stdout.WriteString(w.Event.ID + "\n") // unbuffered: one write per acknowledged id
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestDurability_KillNine: an append that returned survives kill -9 of the
// process (docs/architecture.md#durable-acknowledgement), and what survives is a gap-free
// prefix of the local counter with HLC increasing in origin_seq order.
func TestDurability_KillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	for round, acks := range []int{300, 1500} {
		t.Run(fmt.Sprintf("after_%d_acks", acks), func(t *testing.T) {
			dir := t.TempDir()
			acked := killMidLoad(t, "TestHelperAppendLoop", dir, acks)

			s := openReplicaAt(t, dir, repA, nil)
			ops := allOps(t, s)[repA]
			held := make(map[string]bool, len(ops))
			for i, op := range ops {
				held[op.Event.ID] = true
				if op.Event.OriginSeq != int64(i+1) {
					t.Fatalf("origin_seq %d at position %d: not gap-free", op.Event.OriginSeq, i)
				}
				if i > 0 && op.Event.HLC <= ops[i-1].Event.HLC {
					t.Fatalf("hlc %s after %s: not increasing in origin_seq order", op.Event.HLC, ops[i-1].Event.HLC)
				}
			}
			for _, id := range acked {
				if !held[id] {
					t.Fatalf("acknowledged event %s lost (held %d, acked %d)", id, len(ops), len(acked))
				}
			}
			if s.VersionVector()[repA] != int64(len(ops)) {
				t.Fatalf("vv %v; %d ops held", s.VersionVector(), len(ops))
			}
			// The derived tables survive too: the killed store, its owed
			// rows written, holds exactly what a replica that applied the
			// same ops derives (owed rows still lagging at the kill and
			// watermarks saved only at Close are made good at Open).
			writeOwedRows(t, s)
			fresh, _ := openReplica(t, repB)
			mustApply(t, fresh, Batch{Ops: ops})
			writeOwedRows(t, fresh)
			if got, want := derivedRows(t, s), derivedRows(t, fresh); got != want {
				t.Fatalf("derived rows after kill -9 differ from a replica that applied the same ops:\n%s\nwant\n%s", got, want)
			}
			// The node goes on numbering from where it stopped.
			e := mustAppend(t, s, note("a", "b"))
			if e.OriginSeq != int64(len(ops))+1 || e.HLC <= ops[len(ops)-1].Event.HLC {
				t.Fatalf("after restart: origin_seq %d hlc %s", e.OriginSeq, e.HLC)
			}
			t.Logf("round %d: %d acknowledged, %d held", round, len(acked), len(ops))
		})
	}
}

// killMidLoad runs the test binary's helper test helper as a child process
// writing to dir, reads the lines it prints (one per acknowledged write),
// kills it with SIGKILL once it printed at least lines and returns every
// line it printed, those written after the kill was sent included.
func killMidLoad(t *testing.T, helper, dir string, lines int) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	printed := make([]string, 0, lines)
	sc := bufio.NewScanner(stdout)
	deadline := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for len(printed) < lines && sc.Scan() {
		printed = append(printed, sc.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		printed = append(printed, sc.Text())
	}
	err = cmd.Wait()
	if len(printed) < lines {
		t.Fatalf("child stopped after %d acknowledgements: %v\n%s", len(printed), err, stderr.String())
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed by SIGKILL: %v\n%s", cmd.ProcessState, stderr.String())
	}
	return printed
}

// applyLoopBatch is the number of ops in each batch TestHelperApplyLoop
// applies.
const applyLoopBatch = 200

// TestHelperApplyLoop is not a test: run by TestDurability_KillNineDuringApply
// as a child process, it applies the fleet ops of newBenchGen(1) (four
// origins, threads closed by terminal replies) in batches until killed and
// prints the number of ops applied so far after each batch returns.
func TestHelperApplyLoop(t *testing.T) {
	s := helperStore(t, repD, "TestDurability_KillNineDuringApply")
	gen := newBenchGen(1)
	for applied := 0; ; {
		res, err := s.ApplyBatch(context.Background(), gen.batch(applyLoopBatch))
		if err != nil || res.Applied != applyLoopBatch {
			fmt.Fprintln(os.Stderr, "apply:", fmtResult(res), err)
			os.Exit(3)
		}
		applied += res.Applied
		os.Stdout.WriteString(strconv.Itoa(applied) + "\n") // unbuffered: one write per acknowledged batch
	}
}

// TestDurability_KillNineDuringApply: a remote batch whose apply returned
// survives kill -9 (the peer that sent it moves on), each batch is stored
// whole or not at all (one transaction), what survives is a gap-free
// prefix of every origin, and the derived tables are what a replica that
// applied the same ops derives.
func TestDurability_KillNineDuringApply(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	printed := killMidLoad(t, "TestHelperApplyLoop", dir, 15)
	acked, err := strconv.Atoi(printed[len(printed)-1])
	if err != nil {
		t.Fatal(err)
	}

	s := openReplicaAt(t, dir, repD, nil)
	held := allOps(t, s)
	var total int
	var flat []Op
	for origin, ops := range held {
		for i, op := range ops {
			if op.Event.OriginSeq != int64(i+1) {
				t.Fatalf("%s: origin_seq %d at position %d: not a prefix", origin, op.Event.OriginSeq, i)
			}
		}
		total += len(ops)
		flat = append(flat, ops...)
	}
	if total < acked {
		t.Fatalf("%d ops held after %d were acknowledged", total, acked)
	}
	if total%applyLoopBatch != 0 {
		t.Fatalf("%d ops held: a batch of %d was stored in part", total, applyLoopBatch)
	}
	want := newBenchGen(1).batch(total).Ops
	byID := make(map[string]Event, len(flat))
	for _, op := range flat {
		byID[op.Event.ID] = op.Event
	}
	for _, op := range want {
		got, ok := byID[op.Event.ID]
		if !ok || got.HLC != op.Event.HLC || got.OriginSeq != op.Event.OriginSeq || got.Body != op.Event.Body {
			t.Fatalf("op %s (%s/%d) is not held as it was sent: %+v", op.Event.ID, op.Event.OriginReplica, op.Event.OriginSeq, got)
		}
	}

	writeOwedRows(t, s)
	fresh, _ := openReplica(t, repD)
	mustApply(t, fresh, Batch{Ops: want})
	writeOwedRows(t, fresh)
	if got, wantRows := derivedRows(t, s), derivedRows(t, fresh); got != wantRows {
		t.Fatalf("derived rows after kill -9 differ from a replica that applied the same ops:\n%.2000s\nwant\n%.2000s", got, wantRows)
	}
	t.Logf("%d ops acknowledged, %d held", acked, total)
}
