package httpapi

import (
	"context"
	"maps"
	"slices"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

// LogSizes is what /statusz shows of the log's sizes and last writes
// (docs/operations.md, "Retention"), and whether the node is pulling its
// own origin back after a restore.
type LogSizes interface {
	Sizes(ctx context.Context) (store.Sizes, error)
	Recovering() bool
}

// sizesMembers are the members /statusz adds to its "log" object: the
// database, WAL and artifact bytes, the events per stream, and the
// times of the last commit and of the newest own op (null when none).
// The database file's mtime tells nothing of the last write: in WAL mode
// commits go to the -wal file.
func (s *Server) sizesMembers(ctx context.Context) (pyjson.Object, error) {
	if s.cfg.Sizes == nil {
		return nil, nil
	}
	z, err := s.cfg.Sizes.Sizes(ctx)
	if err != nil {
		return nil, err
	}
	streams := make(pyjson.Object, 0, len(z.StreamEvents))
	for _, name := range slices.Sorted(maps.Keys(z.StreamEvents)) {
		streams = append(streams, pyjson.Member{Key: name, Value: z.StreamEvents[name]})
	}
	return pyjson.Object{
		{Key: "database_bytes", Value: z.DatabaseBytes},
		{Key: "wal_bytes", Value: z.WALBytes},
		{Key: "artifact_bytes", Value: z.ArtifactBytes},
		{Key: "last_write_at", Value: stampOrNull(z.LastCommit)},
		{Key: "last_local_write_at", Value: stampOrNull(z.LastLocalWrite)},
		{Key: "stream_events", Value: streams},
	}, nil
}

// recovering reports whether the node refuses local writes until its
// own origin is pulled back.
func (s *Server) recovering() bool {
	return s.cfg.Sizes != nil && s.cfg.Sizes.Recovering()
}
