package store

import (
	"encoding/base64"
	"testing"
)

// TestMaxCursorChars: the largest cursor DecodeCursor takes is exactly
// MaxCursorChars long.
func TestMaxCursorChars(t *testing.T) {
	if got := len(cursorPrefix) + base64.RawURLEncoding.EncodedLen(maxCursorBytes); got != MaxCursorChars {
		t.Fatalf("MaxCursorChars = %d; the longest cursor is %d characters", MaxCursorChars, got)
	}
}
