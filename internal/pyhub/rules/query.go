package rules

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pytime"
)

var (
	// isoDateRE and isoDateTimeRE are the shapes since_created_at accepts.
	isoDateRE     = regexp.MustCompile(`^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$`)
	isoDateTimeRE = regexp.MustCompile(`^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:Z|\+00:00)$`)
)

// SinceCreatedAt validates a created_at lower bound: nil and "" are
// absent (""); otherwise a string that, stripped, is YYYY-MM-DD or
// YYYY-MM-DDTHH:MM:SS with Z or +00:00 (normalised to Z), and a real
// calendar date.
func SinceCreatedAt(v any) (string, error) {
	if v == nil || v == "" {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalidf("since_created_at must be a string")
	}
	s = pyStrip(s)
	switch {
	case isoDateRE.MatchString(s) && realTime(time.DateOnly, s):
		return s, nil
	case isoDateTimeRE.MatchString(s) && realTime(pytime.UTCLayout, s[:19]+"Z"):
		return s[:19] + "Z", nil
	}
	return "", invalidf("since_created_at=%s is not a valid ISO-8601 date or UTC datetime (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)", Repr(s))
}

// realTime reports whether s parses with layout as a real instant in
// years 1..9999 (Python's date range).
func realTime(layout, s string) bool {
	t, err := time.Parse(layout, s)
	return err == nil && t.Year() >= 1
}

// Limit validates a page size: nil is DefaultListLimit; otherwise an
// integer (a bool counts, as in Python) of at least 1, clamped to
// MaxListLimit.
func Limit(v any) (int, error) {
	if v == nil {
		return DefaultListLimit, nil
	}
	n, ok := pyInt(v)
	if !ok || n < 1 {
		return 0, invalidf("limit must be a positive integer")
	}
	return int(min(n, MaxListLimit)), nil
}

// AfterSeq validates an op-range cursor: nil is 0; otherwise an integer
// of at least 0 (values beyond int64 saturate).
func AfterSeq(v any) (int64, error) {
	if v == nil {
		return 0, nil
	}
	n, ok := pyInt(v)
	if !ok || n < 0 {
		return 0, invalidf("after_seq must be a non-negative integer")
	}
	return n, nil
}

// TimeoutMS validates a wait timeout in milliseconds: nil is
// DefaultWaitMS; otherwise a number (int, float or bool) of at least 0,
// clamped to MaxWaitMS; a fraction rounds up, so a positive wait stays
// positive.
func TimeoutMS(v any) (int, error) {
	if v == nil {
		return DefaultWaitMS, nil
	}
	f, ok := pyNumber(v)
	if !ok || math.IsNaN(f) || f < 0 {
		return 0, invalidf("timeout_ms must be a non-negative number")
	}
	return int(math.Ceil(min(f, MaxWaitMS))), nil
}

// Order validates a list order: nil is "" (the caller picks the default);
// otherwise a string that, lowercased and stripped, is "asc" or "desc".
func Order(v any) (string, error) {
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalidf("order=%s must be 'asc' or 'desc'", ReprValue(v))
	}
	s = pyStrip(pyLower(s))
	if s != "asc" && s != "desc" {
		return "", invalidf("order=%s must be 'asc' or 'desc'", Repr(s))
	}
	return s, nil
}

// pyInt returns v as an integer when Python's isinstance(v, int) holds for
// what json.loads made of it: a JSON integer literal, a Go integer or a
// bool. Integers beyond int64 saturate.
func pyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return n, true // ParseInt saturates at MinInt64/MaxInt64
		}
		return n, err == nil
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		return rv.Int(), true
	case rv.CanUint():
		return int64(min(rv.Uint(), math.MaxInt64)), true
	}
	return 0, false
}

// pyNumber returns v as a float when Python's isinstance(v, (int, float))
// holds for what json.loads made of it. A JSON number too large for a
// float gives ±Inf, as in Python.
func pyNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil || errors.Is(err, strconv.ErrRange)
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	n, ok := pyInt(v)
	return float64(n), ok
}
