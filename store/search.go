package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// Search orders.
const (
	// SearchByRank puts the best matches first (bm25; ties oldest first).
	SearchByRank = "rank"
	// SearchOldestFirst orders matches by HLC; its pages resume by cursor.
	SearchOldestFirst = "asc"
	// SearchNewestFirst orders matches by HLC, newest first.
	SearchNewestFirst = "desc"
)

// SearchQuery is a full-text search of the events (search_query.go gives
// the query syntax).
type SearchQuery struct {
	// Query is the text to search for.
	Query string
	// Order is SearchByRank ("" too), SearchOldestFirst or
	// SearchNewestFirst.
	Order string
	// Filter narrows the matches as it narrows a list: Stream, Room,
	// Topic, Type, ToAgent (X or '*'), Writer (from_agent),
	// CorrelationID, Status, SinceCreatedAt, Scope, Limit (a page, 50 by
	// default, at most 500) and Preview. Cursor, a portable cursor,
	// leaves out the events it covers. SinceEventID, BeforeEventID,
	// AfterSeq and Order do not apply.
	Filter Filter
}

// SearchHit is one matching event.
type SearchHit struct {
	Event Event
	// Score is the match's bm25 score: lower is better. It depends on
	// the events held only, so converged replicas give the same one.
	Score float64
}

// SearchResult is a page of matches.
type SearchResult struct {
	Hits []SearchHit
	// Cursor resumes after the page on any replica. After a full page in
	// SearchOldestFirst order it leaves out the matches returned so far,
	// and the next search with it returns the following ones; otherwise
	// it covers every event held, and a search with it returns only the
	// matches that arrive later.
	Cursor string
	// Cut reports a page cut short at the size bound
	// (Config.MaxPageBytes).
	Cut bool
}

// matchesSQL joins the events with the search index's matches for the
// MATCH argument: each row is an event (eventColumns) and its score.
const matchesSQL = ` FROM events JOIN (SELECT rowid AS hit, rank AS score FROM lsnode_search WHERE lsnode_search MATCH ?) m
ON events.rowid = m.hit`

// Search returns a page of the events that match q. Matches, scores and
// order depend only on the ops held, so every converged replica gives the
// same page; a malformed query is a *SearchQueryError. It reads every
// match of the query (the ranking, or the HLC order, needs them all), so
// its cost grows with how common the query's words are.
func (s *Store) Search(ctx context.Context, q SearchQuery) (SearchResult, error) {
	expr, err := compileSearch(q.Query)
	if err != nil {
		return SearchResult{}, err
	}
	order := strings.ToLower(strings.TrimSpace(q.Order))
	if order == "" {
		order = SearchByRank
	}
	if order != SearchByRank && order != SearchOldestFirst && order != SearchNewestFirst {
		return SearchResult{}, invalidf("order=%s must be 'rank', 'asc' or 'desc'", rules.Repr(q.Order))
	}
	f := q.Filter
	for _, field := range []struct {
		set  bool
		name string
	}{{f.SinceEventID != "", "since_event_id"}, {f.BeforeEventID != "", "before_event_id"}, {f.AfterSeq != 0, "after_seq"}, {f.Order != "", "the filter's order"}} {
		if field.set {
			return SearchResult{}, invalidf("%s does not apply to search: page with the cursor", field.name)
		}
	}
	c, err := compileFilter(f)
	if err != nil {
		return SearchResult{}, err
	}
	where, args := append([]string(nil), c.where...), append([]any{expr}, c.args...)
	switch c.to {
	case "":
	case "*":
		where = append(where, `to_agent = '*'`)
	default:
		where, args = append(where, `(to_agent = ? OR to_agent = '*')`), append(args, c.to)
	}
	if c.cursor != nil {
		where, args = append(where, `origin_seq > coalesce(json_extract(?, '$."' || origin_replica || '"'), 0)`), append(args, cursorJSON(c.cursor))
	}
	orderBy := `m.score, hlc, origin_replica, origin_seq`
	switch order {
	case SearchOldestFirst:
		orderBy = `hlc, origin_replica, origin_seq`
	case SearchNewestFirst:
		orderBy = `hlc DESC, origin_replica DESC, origin_seq DESC`
	}

	before := s.VersionVector() // covered by the snapshot below (listSQL)
	rtx, err := s.readDB.BeginTx(ctx, nil)
	if err != nil {
		return SearchResult{}, fmt.Errorf("begin read: %w", err)
	}
	defer rtx.Rollback() //nolint:errcheck // read-only transaction
	tx := s.reads.in(rtx)
	hits, err := searchPage(ctx, tx, `SELECT `+eventColumns+`, m.score`+matchesSQL+whereClause(where)+` ORDER BY `+orderBy+` LIMIT ?`,
		append(args, c.limit))
	if err != nil {
		return SearchResult{}, err
	}
	full, cut := len(hits) >= c.limit, false
	evs := make([]Event, len(hits))
	for i := range hits {
		evs[i] = hits[i].Event
	}
	evs = previewed(c, evs)
	if n := pageFit(evs, s.cfg.MaxPageBytes); n < len(evs) {
		evs, hits, full, cut = evs[:n], hits[:n], true, true
	}
	for i := range hits {
		hits[i].Event = evs[i]
	}
	seen := mergeVV(c.cursor, before)
	for _, e := range evs {
		seen[e.OriginReplica] = max(seen[e.OriginReplica], e.OriginSeq)
	}
	if full && order == SearchOldestFirst {
		if err := resumeAt(ctx, tx, where, args, evs[len(evs)-1], seen); err != nil {
			return SearchResult{}, err
		}
	}
	return SearchResult{Hits: hits, Cursor: EncodeCursor(seen), Cut: cut}, nil
}

// searchPage runs a page query of eventColumns and a score.
func searchPage(ctx context.Context, q querier, query string, args []any) ([]SearchHit, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits := []SearchHit{}
	for rows.Next() {
		var h SearchHit
		if h.Event, err = scanEvent(rows, &h.Score); err != nil {
			rows.Close()
			return nil, err
		}
		hits = append(hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	evs := make([]Event, len(hits))
	for i := range hits {
		evs[i] = hits[i].Event
	}
	if err := attachArtifactIDs(ctx, q, evs); err != nil {
		return nil, err
	}
	for i := range hits {
		hits[i].Event = evs[i]
	}
	return hits, nil
}

// resumeAt makes seen, the cursor after a full page in HLC order that
// ends at last, leave out exactly the matches returned so far: for every
// origin with a match not returned after last, everything below its
// first such match; for the others, everything held (seen already says
// so). Origins' stamps grow with their origin_seq, so the matches of an
// origin below that first one are all at or before last and returned.
func resumeAt(ctx context.Context, q querier, where []string, args []any, last Event, seen map[string]int64) error {
	rows, err := q.QueryContext(ctx, `SELECT origin_replica, min(origin_seq)`+matchesSQL+
		whereClause(append(where, `(hlc, origin_replica, origin_seq) > (?, ?, ?)`))+` GROUP BY origin_replica`,
		append(args, last.HLC, last.OriginReplica, last.OriginSeq)...)
	if err != nil {
		return fmt.Errorf("search cursor: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var origin string
		var first int64
		if err := rows.Scan(&origin, &first); err != nil {
			return fmt.Errorf("search cursor: %w", err)
		}
		seen[origin] = first - 1
	}
	return rows.Err()
}
