package pytime

import (
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pynum"
)

// The hub's periods in float seconds, read from the environment as the
// hub reads them: Python's float() of the text (pynum.Float), and the
// default for a text float() refuses. lsnode also keeps the default for
// NaN and for more than 1e9 seconds, which a Duration cannot hold.

// ParseTimeout reads a MEMPALACE_SYNC_HTTP_TIMEOUT value: float seconds;
// empty or garbage means def. lsnode also refuses values that are not
// positive (Python would pass them to urllib). The caller reads the
// variable (cmd/lsnode).
func ParseTimeout(v string, def time.Duration) time.Duration {
	f, err := pynum.Float(v)
	if err != nil || f != f || f <= 0 || f > 1e9 {
		return def
	}
	return time.Duration(f * float64(time.Second))
}

// ParseInterval reads a MEMPALACE_SYNC_INTERVAL value: float seconds;
// empty or garbage means def; 0 or negative disables the loop (returned
// as 0). The caller reads the variable (cmd/lsnode).
func ParseInterval(v string, def time.Duration) time.Duration {
	f, err := pynum.Float(v)
	switch {
	case err != nil || f != f:
		return def
	case f <= 0:
		return 0
	case f > 1e9:
		return def
	}
	return time.Duration(f * float64(time.Second))
}
