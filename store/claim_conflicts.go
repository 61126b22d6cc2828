package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Claim conflicts (claims.go): owed asks whose addressee claimed them from
// two or more replicas. Only an agent whose claims came from two replicas
// can have one (a claimer), and only an ask that such an agent claimed in
// its thread from two replicas, or named by ack_of, can be one: those are
// read in one snapshot, with the claimers' claims, and swept in memory,
// thread by thread (threadSweep), rather than joined ask by ask in SQL,
// which costs a b-tree search per ask and claim.

// conflictCTEs names the claimers and, among their threads, those they
// claimed in from two or more replicas.
const conflictCTEs = `WITH claimers(agent) AS (
  SELECT agent FROM lsnode_progress WHERE status = 'claimed' GROUP BY agent HAVING min(origin_replica) != max(origin_replica)),
threads(agent, correlation_id) AS (
  SELECT p.agent, p.correlation_id FROM claimers k JOIN lsnode_progress p ON p.agent = k.agent
  WHERE p.status = 'claimed' AND p.correlation_id != '' GROUP BY p.agent, p.correlation_id HAVING min(p.origin_replica) != max(p.origin_replica))
`

// conflictClaimsSQL reads every claim of the claimers.
const conflictClaimsSQL = conflictCTEs + `SELECT p.agent, p.correlation_id, p.hlc, p.origin_replica, p.ctx_json, p.ack_of
FROM claimers k JOIN lsnode_progress p ON p.agent = k.agent WHERE p.status = 'claimed'`

// conflictAckedSQL reads the owed asks a claimer's claim names by
// ack_of, as (id, addressee, thread, hlc, origin_replica, origin_seq);
// an ask named by several claims comes once per claim.
var conflictAckedSQL = conflictCTEs + `SELECT e.id, e.to_agent, e.correlation_id, e.hlc, e.origin_replica, e.origin_seq FROM claimers k
JOIN lsnode_progress p INDEXED BY lsnode_progress_ack_idx ON p.agent = k.agent AND p.ack_of IS NOT NULL
JOIN events e ON e.id = p.ack_of AND e.to_agent = p.agent
WHERE p.status = 'claimed' AND ` + owedTailCondition

// conflictThreadsSQL reads the owed asks in the threads, as
// conflictAckedSQL does: their owed rows, through the rows' thread index
// and so in thread order, and the events past the owed mark that are
// owed and have no row yet (owedlag.go), each once. The owed rows' ids
// are read only when withIDs is set (NULL otherwise): they are in the
// table, not in the index.
func conflictThreadsSQL(withIDs bool) string {
	id := "NULL"
	if withIDs {
		id = "o.event_id"
	}
	return conflictCTEs + `SELECT ` + id + `, o.agent, o.correlation_id, o.hlc, o.origin_replica, o.origin_seq
FROM threads t JOIN lsnode_owed o INDEXED BY lsnode_owed_thread_idx ON o.agent = t.agent AND o.correlation_id = t.correlation_id
UNION ALL
SELECT e.id, e.to_agent, e.correlation_id, e.hlc, e.origin_replica, e.origin_seq FROM events e
WHERE e.rowid > ` + owedMarkSQL + ` AND (e.to_agent, e.correlation_id) IN threads AND ` + owedTailCondition + `
 AND NOT EXISTS (SELECT 1 FROM lsnode_owed o WHERE o.agent = e.to_agent AND o.hlc = e.hlc AND o.origin_replica = e.origin_replica AND o.origin_seq = e.origin_seq)`
}

// ClaimConflicts returns the owed asks whose addressee claimed them from
// two or more replicas, oldest first in HLC order, among the events scope
// may read (nil: all), with their claims. Its cost grows with the claims
// of the agents that claimed from two replicas and with the asks they
// owe in the threads they claimed in, and with the conflicts found.
func (s *Store) ClaimConflicts(ctx context.Context, scope *ReadScope) ([]Ask, error) {
	found, err := s.conflictingAsks(ctx, true)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(found))
	for i, a := range found {
		ids[i] = a.id
	}
	asks := []Ask{}
	for start := 0; start < len(ids); start += maxAsksPerQuery {
		evs, err := s.eventsByID(ctx, ids[start:min(start+maxAsksPerQuery, len(ids))])
		if err != nil {
			return nil, err
		}
		for _, e := range evs {
			if scope.allows(&e) {
				asks = append(asks, Ask{Event: e})
			}
		}
	}
	return asks, s.attachAllReplies(ctx, asks)
}

// ClaimConflictCounts counts, by addressee, the owed asks in claim
// conflict (agents without any are left out).
func (s *Store) ClaimConflictCounts(ctx context.Context) (map[string]int, error) {
	found, err := s.conflictingAsks(ctx, false)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, a := range found {
		out[a.agent]++
	}
	return out, nil
}

// conflictAsk is an ask the conflict count considers.
type conflictAsk struct {
	id          string // "" when not read
	agent, corr string
	hlc, origin string
	seq         int64
}

// compare orders asks by (hlc, origin_replica, origin_seq).
func (a *conflictAsk) compare(b *conflictAsk) int {
	return cmp.Or(strings.Compare(a.hlc, b.hlc), strings.Compare(a.origin, b.origin), cmp.Compare(a.seq, b.seq))
}

// conflictingAsks returns the owed asks in claim conflict, each with its
// addressee; when listing, also with its id, oldest first.
func (s *Store) conflictingAsks(ctx context.Context, listing bool) ([]*conflictAsk, error) {
	rtx, err := s.readDB.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin read: %w", err)
	}
	defer rtx.Rollback() //nolint:errcheck // read-only transaction
	tx := s.reads.in(rtx)
	claims, err := readConflictClaims(ctx, tx)
	if err != nil || len(claims.byThread) == 0 && len(claims.byAck) == 0 {
		return nil, err
	}
	j := conflictJudge{claims: claims, sweeps: map[[2]string]*threadSweep{}, acked: map[originSlot]bool{}}
	var out []*conflictAsk
	// The asks named by ack_of first: an ask of a thread read again below
	// is judged once.
	if err := readConflictAsks(ctx, tx, conflictAckedSQL, func(a *conflictAsk) {
		slot := originSlot{a.origin, a.seq}
		if !j.acked[slot] && j.inConflict(a) {
			out = append(out, a)
		}
		j.acked[slot] = true
	}); err != nil {
		return nil, err
	}
	if err := readConflictAsks(ctx, tx, conflictThreadsSQL(listing), func(a *conflictAsk) {
		if (len(j.acked) == 0 || !j.acked[originSlot{a.origin, a.seq}]) && j.inConflict(a) {
			out = append(out, a)
		}
	}); err != nil {
		return nil, err
	}
	if listing {
		slices.SortFunc(out, (*conflictAsk).compare)
	}
	return out, nil
}

// conflictJudge tells the asks in conflict from the claimers' claims.
type conflictJudge struct {
	claims conflictClaims
	sweeps map[[2]string]*threadSweep // by (addressee, thread), built on first use
	last   [2]string                  // the thread of the last sweep used (the rows come in thread order)
	lastSw *threadSweep
	acked  map[originSlot]bool // the asks named by ack_of, judged
}

// inConflict reports whether the claims that join a (those naming it by
// ack_of, and those in its thread that came after it) came from two or
// more replicas.
func (j *conflictJudge) inConflict(a *conflictAsk) bool {
	var seen replicaPair
	if a.id != "" {
		for _, from := range j.claims.byAck[[2]string{a.agent, a.id}] {
			seen.add(from)
		}
	}
	if a.corr == "" || seen.full() {
		return seen.full()
	}
	if key := [2]string{a.agent, a.corr}; key != j.last {
		sw, ok := j.sweeps[key]
		if !ok {
			sw = newThreadSweep(j.claims.byThread[key])
			j.sweeps[key] = sw
		}
		j.last, j.lastSw = key, sw
	}
	seen.merge(j.lastSw.after(a))
	return seen.full()
}

// conflictClaims are the claimers' claims: by (agent, thread) and, for
// those naming an ask by ack_of, the replicas by (agent, ask id).
type conflictClaims struct {
	byThread map[[2]string][]sweptClaim
	byAck    map[[2]string][]string
}

func readConflictClaims(ctx context.Context, q querier) (conflictClaims, error) {
	out := conflictClaims{byThread: map[[2]string][]sweptClaim{}, byAck: map[[2]string][]string{}}
	rows, err := q.QueryContext(ctx, conflictClaimsSQL)
	if err != nil {
		return out, fmt.Errorf("claim conflicts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var agent, corr string
		var c sweptClaim
		var ctxJSON, ackOf sql.NullString
		if err := rows.Scan(&agent, &corr, &c.hlc, &c.from, &ctxJSON, &ackOf); err != nil {
			return out, fmt.Errorf("claim conflicts: %w", err)
		}
		if ctxJSON.Valid {
			if c.ctx, err = parseCausal(ctxJSON.String); err != nil {
				return out, err
			}
		}
		if corr != "" {
			key := [2]string{agent, corr}
			out.byThread[key] = append(out.byThread[key], c)
		}
		if ackOf.Valid {
			key := [2]string{agent, ackOf.String}
			out.byAck[key] = append(out.byAck[key], c.from)
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("claim conflicts: %w", err)
	}
	return out, nil
}

// readConflictAsks runs a query of asks (conflictAckedSQL's columns) and
// hands each row to judge.
func readConflictAsks(ctx context.Context, q querier, query string, judge func(*conflictAsk)) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("claim conflicts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		a := &conflictAsk{}
		var id, corr sql.NullString
		if err := rows.Scan(&id, &a.agent, &corr, &a.hlc, &a.origin, &a.seq); err != nil {
			return fmt.Errorf("claim conflicts: %w", err)
		}
		a.id, a.corr = id.String, corr.String
		judge(a)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("claim conflicts: %w", err)
	}
	return nil
}

// originSlot names an event by its origin and origin_seq.
type originSlot struct {
	origin string
	seq    int64
}
