package hostport

import (
	"strings"
	"testing"
)

func TestBind(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want Addr
	}{
		{"127.0.0.1:8765", Addr{"127.0.0.1", 8765}},
		{"127.0.0.1:0", Addr{"127.0.0.1", 0}},
		{":65535", Addr{"", 65535}},
		{"[::1]:8766", Addr{"::1", 8766}},
		{"localhost:1", Addr{"localhost", 1}},
	} {
		got, err := Bind(tc.addr)
		if err != nil || got != tc.want {
			t.Errorf("Bind(%q) = %+v, %v; want %+v", tc.addr, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:99999", "port 99999 is not in 0..65535"},
		{"127.0.0.1:65536", "port 65536 is not in 0..65535"},
		{"127.0.0.1:-1", "port -1 is not in 0..65535"},
		{"127.0.0.1:no-such-service-here", `port "no-such-service-here" is neither a number nor a known service`},
		{"127.0.0.1", "missing port"},
		{"::1:8765", "too many colons"},
		{"", "missing port"},
	} {
		if _, err := Bind(tc.addr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Bind(%q) = %v, want an error containing %q", tc.addr, err, tc.want)
		}
	}
}

func TestDial(t *testing.T) {
	if a, err := Dial("node-2.example:8766"); err != nil || a != (Addr{"node-2.example", 8766}) {
		t.Errorf("Dial = %+v, %v", a, err)
	}
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.1:99999", "nohost"} {
		if _, err := Dial(addr); err == nil {
			t.Errorf("Dial(%q) succeeded", addr)
		}
	}
}

func TestOverlaps(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"127.0.0.1:8765", "127.0.0.1:8765", true},
		{"0.0.0.0:8765", "127.0.0.1:8765", true},
		{"127.0.0.1:8765", ":8765", true},
		{"[::]:8765", "[::1]:8765", true},
		{"LOCALHOST:8765", "localhost:8765", true},
		{"127.0.0.1:8765", "127.0.0.2:8765", false},
		{"127.0.0.1:8765", "127.0.0.1:8766", false},
		{"127.0.0.1:0", "127.0.0.1:0", false}, // each picks its own port
	} {
		a, err1 := Bind(tc.a)
		b, err2 := Bind(tc.b)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if got := a.Overlaps(b); got != tc.want || b.Overlaps(a) != tc.want {
			t.Errorf("%s overlaps %s: %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
