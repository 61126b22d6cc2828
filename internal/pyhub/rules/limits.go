package rules

// Limits of the Python hub (logstream.py); sizes are UTF-8 bytes.
const (
	// MaxBodyBytes bounds an event body.
	MaxBodyBytes = 262144
	// MaxContentBytes bounds an artifact's content.
	MaxContentBytes = 4194304
	// MaxMetadataBytes bounds the canonical metadata_json text.
	MaxMetadataBytes = 65536
	// MaxRouting bounds a routing field, in code points.
	MaxRouting = 256
	// MaxListLimit is the largest page a list or wait returns; larger
	// limits are clamped to it.
	MaxListLimit = 500
	// DefaultListLimit is the page size when no limit is given.
	DefaultListLimit = 50
	// MaxWaitMS is the longest wait; larger timeouts are clamped to it.
	MaxWaitMS = 300000
	// DefaultWaitMS is the wait when no timeout is given.
	DefaultWaitMS = 60000
)
