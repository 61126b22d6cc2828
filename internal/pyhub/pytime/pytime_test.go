package pytime

import (
	"testing"
	"time"
)

// The expected texts are what CPython 3.11 writes for the same instants.
func TestUTC(t *testing.T) {
	at := time.Date(2026, 7, 2, 23, 14, 9, 987654321, time.FixedZone("CEST", 2*3600))
	if got, want := UTC(at), "2026-07-02T21:14:09Z"; got != want {
		t.Errorf("UTC = %q, want %q (time.strftime truncates the fraction)", got, want)
	}
	if got := UTCOrNull(time.Time{}); got != nil {
		t.Errorf("UTCOrNull(zero) = %#v, want nil", got)
	}
	if got, want := UTCOrNull(at), any("2026-07-02T21:14:09Z"); got != want {
		t.Errorf("UTCOrNull = %#v, want %#v", got, want)
	}
	if got, want := at.UTC().Format("evt_"+IDLayout), "evt_20260702T211409"; got != want {
		t.Errorf("id stamp = %q, want %q", got, want)
	}
}

// LocalISO is datetime.isoformat(): the fraction in microseconds, left
// out when it is zero (also when only nanoseconds remain).
func TestLocalISO(t *testing.T) {
	local := time.Date(2026, 7, 2, 21, 14, 9, 0, time.Local)
	tests := []struct {
		at   time.Time
		want string
	}{
		{local, "2026-07-02T21:14:09"},
		{local.Add(999 * time.Nanosecond), "2026-07-02T21:14:09"},
		{local.Add(1500 * time.Nanosecond), "2026-07-02T21:14:09.000001"},
		{local.Add(120 * time.Millisecond), "2026-07-02T21:14:09.120000"},
	}
	for _, tt := range tests {
		if got := LocalISO(tt.at); got != tt.want {
			t.Errorf("LocalISO(%v) = %q, want %q", tt.at, got, tt.want)
		}
	}
}
