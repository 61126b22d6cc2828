package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Claims. In RFC 003 §3.3 (docs/architecture.md#rfcs) "claimed" is a
// reply that does not close an ask, and which claim holds is left to
// clients; the store decides it. A claim on an ask is a reply with
// status claimed from the ask's addressee that joins the ask
// as a closing reply would (ack_of, or the same correlation_id and came
// after it: replyCameAfter). The current claim is the earliest of them by
// HLC. When the addressee's claims on one ask come from two or more
// replicas (one agent name in use on two machines), the claim is in
// conflict. Claims and statuses are read from lsnode_progress
// (progress.go), a function of the op set, so every converged replica
// names the same claim and the same conflicts.

// Claim is the current claim on an ask.
type Claim struct {
	// By is the claiming agent: the ask's addressee.
	By string
	// From is the replica the earliest claim was written through (its
	// origin_replica), EventID that claim's id and HLC its stamp.
	From    string
	EventID string
	HLC     string
	// Conflict is set when claims on the ask came from two or more
	// replicas, all listed, sorted, in Replicas.
	Conflict bool
	Replicas []string
}

// Progress is the latest progress reply (claimed or ready) of an ask's
// addressee on the ask, by HLC.
type Progress struct {
	Status  string
	EventID string
	HLC     string
}

// Ask is an event its addressee still owes a reply to, with the
// addressee's claim (nil: unclaimed) and latest progress (nil: none).
// Claims and progress describe the ask, which the caller may read; they
// name their replies' ids, replicas and stamps, never their content.
type Ask struct {
	Event    Event
	Claim    *Claim
	Progress *Progress
}

// Status is the ask's latest status: its addressee's latest progress, or
// else the status the ask was written with.
func (a *Ask) Status() string {
	if a.Progress != nil {
		return a.Progress.Status
	}
	return a.Event.Status
}

// OwedAsks is OwedIn with each event's claim and progress.
func (s *Store) OwedAsks(ctx context.Context, scope *ReadScope, agent, stream string, limit int) ([]Ask, error) {
	evs, err := s.OwedIn(ctx, scope, agent, stream, limit)
	if err != nil {
		return nil, err
	}
	return s.asksOf(ctx, evs)
}

// asksOf wraps owed events as asks and reads their replies.
func (s *Store) asksOf(ctx context.Context, evs []Event) ([]Ask, error) {
	asks := make([]Ask, len(evs))
	for i, e := range evs {
		asks[i].Event = e
	}
	return asks, s.attachAllReplies(ctx, asks)
}

// attachAllReplies sets the claim and progress of every ask.
func (s *Store) attachAllReplies(ctx context.Context, asks []Ask) error {
	for start := 0; start < len(asks); start += maxAsksPerQuery {
		if err := s.attachReplies(ctx, asks[start:min(start+maxAsksPerQuery, len(asks))]); err != nil {
			return err
		}
	}
	return nil
}

// maxAsksPerQuery bounds the ids one replies query names (twice each).
const maxAsksPerQuery = 500

// askRepliesSQL folds, for each of the asks named (%[1]s: the id list,
// given twice), the progress replies that join it: by ack_of, through the
// ack index, and by thread, through the table's key, when they came after
// the ask. One row per ask with replies: its earliest claim and its
// latest reply, each as hlc, event_id and origin (or status) joined by
// U+001F, which no stamp, id, replica or status holds and which sorts
// below all their characters (so these strings order as their (hlc,
// event_id) pairs do), and the replicas it was claimed from. A reply
// found both ways counts twice, which changes none of the three.
const askRepliesSQL = `SELECT ask, min(CASE WHEN status = 'claimed' THEN hlc || char(31) || event_id || char(31) || origin_replica END),
 max(hlc || char(31) || event_id || char(31) || status), group_concat(DISTINCT CASE WHEN status = 'claimed' THEN origin_replica END)
FROM (SELECT e.id AS ask, r.event_id, r.status, r.hlc, r.origin_replica FROM events e
JOIN lsnode_progress r INDEXED BY lsnode_progress_ack_idx ON r.agent = e.to_agent AND r.ack_of = e.id
WHERE e.id IN (%[1]s)
UNION ALL
SELECT e.id, r.event_id, r.status, r.hlc, r.origin_replica FROM events e
JOIN lsnode_progress r ON r.agent = e.to_agent AND r.correlation_id = e.correlation_id
WHERE e.id IN (%[1]s) AND e.correlation_id IS NOT NULL AND ` + replyCameAfter + `)
GROUP BY ask`

// attachReplies sets the claim and progress of at most maxAsksPerQuery
// asks.
func (s *Store) attachReplies(ctx context.Context, asks []Ask) error {
	if len(asks) == 0 {
		return nil
	}
	at := make(map[string]*Ask, len(asks))
	args := make([]any, 0, 2*len(asks))
	for i := range asks {
		at[asks[i].Event.ID] = &asks[i]
		args = append(args, asks[i].Event.ID)
	}
	args = append(args, args...)
	query := fmt.Sprintf(askRepliesSQL, "?"+strings.Repeat(",?", len(asks)-1))
	rows, err := s.reads.pool().QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("read claims: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var askID, latest string
		var claim, replicas sql.NullString
		if err := rows.Scan(&askID, &claim, &latest, &replicas); err != nil {
			return fmt.Errorf("read claims: %w", err)
		}
		a := at[askID]
		if f := strings.Split(latest, "\x1f"); len(f) == 3 {
			a.Progress = &Progress{HLC: f[0], EventID: f[1], Status: f[2]}
		}
		if f := strings.Split(claim.String, "\x1f"); len(f) == 3 {
			rs := strings.Split(replicas.String, ",")
			slices.Sort(rs)
			a.Claim = &Claim{By: a.Event.ToAgent, HLC: f[0], EventID: f[1], From: f[2], Conflict: len(rs) > 1, Replicas: rs}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read claims: %w", err)
	}
	return nil
}
