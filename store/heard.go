package store

import (
	"context"
	"fmt"
	"strings"
)

// lsnode_heard holds, for every agent that wrote an event, the greatest
// HLC stamp among its events: when it was last heard from, anywhere in
// the mesh. The maximum of a set does not depend on the order its members
// arrive in, so the stamp is the same on every converged replica. It is
// written once per transaction for all the events the transaction stored
// (txviews.go) and, for a file that lacks it, from the whole log at Open.

// recordHeardSQL raises each writer's stamp to the newest among the
// events with a rowid above ?1.
const recordHeardSQL = `INSERT INTO lsnode_heard (agent, hlc)
SELECT from_agent, max(hlc) FROM events WHERE rowid > ?1 AND hlc IS NOT NULL GROUP BY from_agent
ON CONFLICT (agent) DO UPDATE SET hlc = excluded.hlc WHERE excluded.hlc > lsnode_heard.hlc`

// recordHeard raises the stamps of the writers of the events with a rowid
// above after.
func recordHeard(ctx context.Context, q querier, after int64) error {
	if _, err := q.ExecContext(ctx, recordHeardSQL, after); err != nil {
		return fmt.Errorf("record writers' stamps: %w", err)
	}
	return nil
}

// lastHeard returns the stamp of each of agents that has written an event.
func lastHeard(ctx context.Context, q querier, agents []string) (map[string]string, error) {
	out := make(map[string]string, len(agents))
	if len(agents) == 0 {
		return out, nil
	}
	args := make([]any, len(agents))
	for i, a := range agents {
		args[i] = a
	}
	rows, err := q.QueryContext(ctx, `SELECT agent, hlc FROM lsnode_heard WHERE agent IN (?`+strings.Repeat(",?", len(args)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read writers' stamps: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var agent, stamp string
		if err := rows.Scan(&agent, &stamp); err != nil {
			return nil, fmt.Errorf("read writers' stamps: %w", err)
		}
		out[agent] = stamp
	}
	return out, rows.Err()
}
