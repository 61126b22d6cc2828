package store

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// Limits of the coordination views' arguments (awaiting, claims, cycles,
// search), exported so that the surfaces' schemas state the same ones.
const (
	// MaxRoutingChars bounds an agent, stream, room or other routing
	// argument, in code points: the limit every routing field of the log
	// is held to.
	MaxRoutingChars = rules.MaxRouting
	// MaxCursorChars bounds a portable cursor argument.
	MaxCursorChars = len(cursorPrefix) + (maxCursorBytes*8+5)/6
	// MaxViewLimit is the largest page a view returns; larger limits are
	// clamped to it, as a list's are.
	MaxViewLimit = rules.MaxListLimit
	// MaxDurationChars bounds a duration argument (older_than), in code
	// points.
	MaxDurationChars = 32
	// MaxSearchQueryChars bounds a search query, in code points.
	MaxSearchQueryChars = 512
	// MaxSearchTerms bounds the words and phrases of a search query.
	MaxSearchTerms = 32
	// MaxCycles bounds the wait-for cycles one answer reports.
	MaxCycles = 100
	// MaxCycleLength bounds the agents of a wait-for cycle.
	MaxCycleLength = 8
	// MaxCycleAsks bounds the asks listed for one edge of a cycle.
	MaxCycleAsks = 10
)

// ParseOlderThan reads an older_than argument: a non-negative Go
// duration ("90s", "30m", "2h", "1h30m"), at most MaxDurationChars long;
// "" is 0 (no bound).
func ParseOlderThan(v string) (time.Duration, error) {
	if utf8.RuneCountInString(v) > MaxDurationChars {
		return 0, invalidf("older_than exceeds maximum length of %d characters", MaxDurationChars)
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, invalidf("older_than=%s is not a non-negative duration such as 30m or 2h", reprID(v))
	}
	return d, nil
}
