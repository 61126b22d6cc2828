package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// querier is what both *sql.DB, *sql.Conn and *sql.Tx offer.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// eventColumns is the column list scanEvent expects.
const eventColumns = `rowid, id, origin_replica, origin_seq, hlc, type, stream, room, topic, from_agent,
to_agent, correlation_id, branch, base_commit, status, body, created_at, metadata_json`

func reprID(id string) string { return rules.Repr(id) }

// scanEvent scans a row of eventColumns, followed by the columns extra
// points at.
func scanEvent(rows *sql.Rows, extra ...any) (Event, error) {
	var e Event
	var origin, hlcStamp, topic, to, corr, branch, base, status sql.NullString
	var originSeq sql.NullInt64
	err := rows.Scan(append([]any{&e.Seq, &e.ID, &origin, &originSeq, &hlcStamp, &e.Type, &e.Stream, &e.Room, &topic,
		&e.FromAgent, &to, &corr, &branch, &base, &status, &e.Body, &e.CreatedAt, (*[]byte)(&e.Metadata)}, extra...)...)
	if err != nil {
		return e, fmt.Errorf("scan event: %w", err)
	}
	e.OriginReplica, e.OriginSeq, e.HLC = origin.String, originSeq.Int64, hlcStamp.String
	e.Topic, e.ToAgent, e.CorrelationID = topic.String, to.String, corr.String
	e.Branch, e.BaseCommit, e.Status = branch.String, base.String, status.String
	if e.Metadata == nil {
		e.Metadata = []byte{} // as []byte(""): an empty column reads as empty, not null
	}
	return e, nil
}

// queryEvents runs a query selecting eventColumns and attaches artifact
// ids (sorted, as reads return them).
func queryEvents(ctx context.Context, q querier, query string, args ...any) ([]Event, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query events: %w", err)
	}
	var out []Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query events: %w", err)
	}
	return out, attachArtifactIDs(ctx, q, out)
}

func attachArtifactIDs(ctx context.Context, q querier, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	idx := make(map[string]int, len(evs))
	args := make([]any, len(evs))
	for i, e := range evs {
		idx[e.ID] = i
		args[i] = e.ID
		evs[i].ArtifactIDs = []string{}
	}
	query := `SELECT event_id, artifact_id FROM event_artifacts WHERE event_id IN (?` +
		strings.Repeat(",?", len(evs)-1) + `) ORDER BY artifact_id`
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("query artifact links: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ev, art string
		if err := rows.Scan(&ev, &art); err != nil {
			return fmt.Errorf("scan artifact link: %w", err)
		}
		i := idx[ev]
		evs[i].ArtifactIDs = append(evs[i].ArtifactIDs, art)
	}
	return rows.Err()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// The statements of insertEvent, by conflict clause: a local event's id is
// fresh, so a held one is an error; a remote event whose id is held
// already is refused by the caller. Whole constants, so that no insert
// builds its SQL text anew.
const (
	abortOnHeldID = `INSERT OR ABORT INTO events ` + eventInsertTail
	skipHeldID    = `INSERT OR IGNORE INTO events ` + eventInsertTail
)

const eventInsertTail = `(id, type, stream, room, topic, from_agent, to_agent,
correlation_id, branch, base_commit, status, body, created_at, metadata_json, origin_replica, origin_seq, hlc)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// insertEvent inserts a complete event row and its artifact links and sets
// its local seq; writeTx.storeEvent adds the derived rows. With skipHeldID
// an event whose id (or origin slot) is held already is not stored and
// stored is false.
func insertEvent(ctx context.Context, tx querier, e *Event, insert string) (stored bool, err error) {
	res, err := tx.ExecContext(ctx, insert,
		e.ID, e.Type, e.Stream, e.Room, nullable(e.Topic), e.FromAgent, nullable(e.ToAgent),
		nullable(e.CorrelationID), nullable(e.Branch), nullable(e.BaseCommit), nullable(e.Status),
		e.Body, e.CreatedAt, string(e.Metadata), e.OriginReplica, e.OriginSeq, e.HLC)
	if err != nil {
		return false, fmt.Errorf("insert event %s: %w", e.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if e.Seq, err = res.LastInsertId(); err != nil {
		return false, fmt.Errorf("insert event %s: %w", e.ID, err)
	}
	for _, a := range e.ArtifactIDs {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO event_artifacts (event_id, artifact_id) VALUES (?, ?)`, e.ID, a); err != nil {
			return false, fmt.Errorf("link artifact %s: %w", a, err)
		}
	}
	return true, nil
}

func insertArtifact(ctx context.Context, tx querier, a Artifact) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO artifacts (id, kind, sha256, size_bytes, content, created_by,
created_at, metadata_json, origin_replica) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.Kind, a.SHA256, a.SizeBytes, a.Content, a.CreatedBy, a.CreatedAt, string(a.Metadata), nullable(a.OriginReplica))
	if err != nil {
		return fmt.Errorf("insert artifact %s: %w", a.ID, err)
	}
	return indexArtifact(ctx, tx, a)
}

func artifactExists(ctx context.Context, q querier, id string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM artifacts WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up artifact %s: %w", id, err)
	}
	return true, nil
}

func getArtifact(ctx context.Context, q querier, id string) (Artifact, error) {
	var a Artifact
	var origin sql.NullString
	var meta string
	err := q.QueryRowContext(ctx, `SELECT id, kind, sha256, size_bytes, content, created_by, created_at,
metadata_json, origin_replica FROM artifacts WHERE id = ?`, id).Scan(&a.ID, &a.Kind, &a.SHA256, &a.SizeBytes,
		&a.Content, &a.CreatedBy, &a.CreatedAt, &meta, &origin)
	if errors.Is(err, sql.ErrNoRows) {
		return a, notFound(rules.ArtifactNotFound(id))
	}
	if err != nil {
		return a, fmt.Errorf("read artifact %s: %w", id, err)
	}
	a.OriginReplica = origin.String
	a.Metadata = []byte(meta)
	return a, nil
}

// GetArtifact reads one artifact with its content.
func (s *Store) GetArtifact(ctx context.Context, id string) (Artifact, error) {
	clean, err := rules.Routing(id, "artifact_id", true)
	if err != nil {
		return Artifact{}, wrapRule(err)
	}
	return getArtifact(ctx, s.reads.pool(), clean)
}

// MissingArtifacts returns the ids among ids that this replica lacks.
func (s *Store) MissingArtifacts(ctx context.Context, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		ok, err := artifactExists(ctx, s.reads.pool(), id)
		if err != nil {
			return nil, err
		}
		if !ok {
			out = append(out, id)
		}
	}
	return out, nil
}
