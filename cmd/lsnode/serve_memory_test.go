package main

import "testing"

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"off": 0, "0": 0, "160MiB": 160 << 20, "1GiB": 1 << 30, "512KiB": 512 << 10,
		"200000000": 200000000, "64B": 64, " 2TiB ": 2 << 40,
	}
	for in, want := range good {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1MiB", "1.5GiB", "10MB", "lots", "99999999999TiB"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{160 << 20: "160MiB", 1 << 30: "1GiB", 1536: "1536", 1000: "1000"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
		if back, err := parseSize(formatSize(n)); err != nil || back != n {
			t.Errorf("parseSize(formatSize(%d)) = %d, %v", n, back, err)
		}
	}
}
