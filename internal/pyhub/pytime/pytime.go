package pytime

import "time"

// UTCLayout is the hub's UTC stamp at second precision,
// time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()): 2026-07-02T21:14:09Z.
// It is the layout of created_at, of a profile's advertised_at and of the
// estate's last_error_at and last_success_at.
const UTCLayout = "2006-01-02T15:04:05Z"

// IDLayout is the UTC stamp inside an event or artifact id,
// <prefix>_<YYYYmmddTHHMMSS>_<12 hex digits>.
const IDLayout = "20060102T150405"

// UTC is t in UTC as UTCLayout writes it.
func UTC(t time.Time) string { return t.UTC().Format(UTCLayout) }

// UTCOrNull is UTC(t), or nil (JSON null) for the zero time, as the
// estate writes a time that has not happened yet.
func UTCOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return UTC(t)
}

// LocalISO is t as Python's datetime.now().isoformat() writes it: local
// time, no zone, and microseconds unless they are zero.
func LocalISO(t time.Time) string {
	t = t.Local()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}
