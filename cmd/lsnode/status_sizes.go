package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
)

// logSizes is what /statusz adds to its "log" object of the log's sizes
// and last writes (absent from nodes that predate them: then zero).
type logSizes struct {
	DatabaseBytes *int64           `json:"database_bytes"`
	WALBytes      int64            `json:"wal_bytes"`
	ArtifactBytes int64            `json:"artifact_bytes"`
	LastWriteAt   *string          `json:"last_write_at"`
	LastLocalAt   *string          `json:"last_local_write_at"`
	StreamEvents  map[string]int64 `json:"stream_events"`
}

// rows are the status lines of the sizes, none for a node that does not
// report them.
func (z logSizes) rows(recovering bool) [][2]string {
	if z.DatabaseBytes == nil {
		return nil
	}
	rows := [][2]string{
		{"database", fmt.Sprintf("%.1f MiB, WAL %.1f MiB, artifacts %.1f MiB",
			mib(*z.DatabaseBytes), mib(z.WALBytes), mib(z.ArtifactBytes))},
		{"last write", orNever(z.LastWriteAt, "never")},
		{"last local write", orNever(z.LastLocalAt, "never")},
	}
	if recovering {
		rows = append(rows, [2]string{"recovering", "yes: restored under its own identity, local writes wait until its origin is pulled back from peers"})
	}
	return rows
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

func orNever(s *string, none string) string {
	if s == nil {
		return none
	}
	return *s
}

// printStreams lists the events per stream, most first.
func (z logSizes) printStreams(w io.Writer) error {
	if len(z.StreamEvents) == 0 {
		return nil
	}
	names := make([]string, 0, len(z.StreamEvents))
	for n := range z.StreamEvents {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := z.StreamEvents[names[i]], z.StreamEvents[names[j]]
		return a > b || (a == b && names[i] < names[j])
	})
	fmt.Fprintln(w)
	var t table
	t.row("STREAM", "EVENTS")
	for _, n := range names {
		t.row(n, strconv.FormatInt(z.StreamEvents[n], 10))
	}
	return t.write(w)
}
