package hlc

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParse_Valid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Timestamp
	}{
		{"12-hex replica", "1783038849123-000000-rep_ab12cd34ef56", stamp(1783038849123, 0, "rep_ab12cd34ef56")},
		{"32-hex replica", "1783038849123-00a0ff-rep_0123456789abcdef0123456789abcdef", stamp(1783038849123, 0xa0ff, "rep_0123456789abcdef0123456789abcdef")},
		{"zero", "0000000000000-000000-x", stamp(0, 0, "x")},
		{"largest", "9999999999999-ffffff-x", stamp(9999999999999, MaxCounter, "x")},
		{"dashes in replica", "0000000000001-000001-a-b-c", stamp(1, 1, "a-b-c")},
		{"non-ASCII replica", "0000000000001-000001-réplica 日本", stamp(1, 1, "réplica 日本")},
		{"carriage return in replica", "0000000000001-000001-a\rb", stamp(1, 1, "a\rb")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.in {
				t.Fatalf("String() = %q, want %q", s, tt.in)
			}
		})
	}
}

func TestParse_Invalid(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{"empty", "", `''`},
		{"12-digit ms", "178303884912-000000-rep_ab12cd34ef56", `'178303884912-000000-rep_ab12cd34ef56'`},
		{"14-digit ms", "17830388491230-000000-rep_x", `'17830388491230-000000-rep_x'`},
		{"bad digit", "17830388491x3-000000-rep_x", `'17830388491x3-000000-rep_x'`},
		{"sign", "+783038849123-000000-rep_x", `'+783038849123-000000-rep_x'`},
		{"uppercase hex", "1783038849123-00000A-rep_x", `'1783038849123-00000A-rep_x'`},
		{"5 hex digits", "1783038849123-00000-rep_x", `'1783038849123-00000-rep_x'`},
		{"non-hex counter", "1783038849123-00000g-rep_x", `'1783038849123-00000g-rep_x'`},
		{"empty replica", "1783038849123-000000-", `'1783038849123-000000-'`},
		{"no replica", "1783038849123-000000", `'1783038849123-000000'`},
		{"wrong separator", "1783038849123_000000_rep_x", `'1783038849123_000000_rep_x'`},
		// Python's $ accepts a trailing newline; lsnode does not.
		{"trailing newline", "1783038849123-000000-rep_x\n", `'1783038849123-000000-rep_x\n'`},
		{"newline inside replica", "1783038849123-000000-rep\nx", `'1783038849123-000000-rep\nx'`},
		// Python's \d accepts Arabic-Indic digits; lsnode does not.
		{"non-ASCII digits", "١٧٨٣٠٣٨٨٤٩١٢٣-000000-rep_x", `'١٧٨٣٠٣٨٨٤٩١٢٣-000000-rep_x'`},
		{"invalid UTF-8 replica", "1783038849123-000000-rep\xff", `'1783038849123-000000-rep\xff'`},
		{"quote in input", "it's", `"it's"`},
		{"older RFC example", "0189f3a2-0007-mac", `'0189f3a2-0007-mac'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error", tt.in, got)
			}
			if !errors.Is(err, ErrInvalidStamp) {
				t.Errorf("Parse(%q) error %v does not wrap ErrInvalidStamp", tt.in, err)
			}
			if want := "not a valid HLC string: " + tt.wantErr; err.Error() != want {
				t.Errorf("Parse(%q) error = %s, want %s", tt.in, err, want)
			}
			if !got.IsZero() {
				t.Errorf("Parse(%q) = %+v on error, want zero", tt.in, got)
			}
		})
	}
}

// TestPyRepr compares with values printed by CPython 3's repr().

func TestTimestamp_String(t *testing.T) {
	tests := []struct {
		ts   Timestamp
		want string
	}{
		{stamp(1783038849123, 0, "rep_ab12cd34ef56"), "1783038849123-000000-rep_ab12cd34ef56"},
		{stamp(42, 0xabcdef, "r"), "0000000000042-abcdef-r"},
		{stamp(1, 1, ""), "0000000000001-000001-"},
		// Out of range: the same text as Python's f"{ms:013d}-{counter:06x}-{id}".
		{stamp(10_000_000_000_000, 0, "r"), "10000000000000-000000-r"},
		{stamp(-1, MaxCounter+1, "x"), "-000000000001-1000000-x"},
	}
	for _, tt := range tests {
		if got := tt.ts.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.ts, got, tt.want)
		}
	}
}

// TestTimestamp_CompareMatchesStringOrder checks on random valid stamps
// that Compare agrees with byte order of String, the order the hub's TEXT
// column and Python's str comparison use.
func TestTimestamp_CompareMatchesStringOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	replicas := []string{"rep_a", "rep_a-b", "rep_a0", "rep_b", "rep_ab12cd34ef56", "é", "z", "rep_A"}
	msChoices := []int64{0, 1, 9, 10, 1783038849123, 1783038849124, maxWallMS}
	counterChoices := []uint32{0, 1, 0xf, 0x10, 0xfff, MaxCounter}
	random := func() Timestamp {
		ms := msChoices[rng.IntN(len(msChoices))]
		if rng.IntN(2) == 0 {
			ms = rng.Int64N(maxWallMS + 1)
		}
		return stamp(ms, counterChoices[rng.IntN(len(counterChoices))], replicas[rng.IntN(len(replicas))])
	}
	for range 20000 {
		a, b := random(), random()
		if got, want := a.Compare(b), strings.Compare(a.String(), b.String()); got != want {
			t.Fatalf("%v.Compare(%v) = %d, string order says %d", a, b, got, want)
		}
	}
}

func TestTimestamp_IsZero(t *testing.T) {
	tests := []struct {
		ts   Timestamp
		want bool
	}{
		{Timestamp{}, true},
		{stamp(0, 0, "r"), false},
		{stamp(1, 0, ""), false},
		{stamp(0, 1, ""), false},
	}
	for _, tt := range tests {
		if got := tt.ts.IsZero(); got != tt.want {
			t.Errorf("%+v.IsZero() = %v, want %v", tt.ts, got, tt.want)
		}
	}
}

// FuzzParse checks the round trip: whatever Parse accepts renders back to
// the same text, and whatever it refuses yields the hub's error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"1783038849123-000000-rep_ab12cd34ef56",
		"1783038849123-ffffff-rep_0123456789abcdef0123456789abcdef",
		"0000000000000-000000-x",
		"9999999999999-ffffff-a-b",
		"178303884912-000000-rep_x",
		"1783038849123-00000A-rep_x",
		"1783038849123-000000-",
		"1783038849123-000000-rep_x\n",
		"1783038849123-000000-rep\xff",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidStamp) || !strings.HasPrefix(err.Error(), "not a valid HLC string: ") {
				t.Fatalf("Parse(%q) error %v: want ErrInvalidStamp with the hub's text", s, err)
			}
			return
		}
		if !ts.inRange() || !validReplica(ts.Replica) {
			t.Fatalf("Parse(%q) = %+v, out of range", s, ts)
		}
		if got := ts.String(); got != s {
			t.Fatalf("Parse(%q).String() = %q", s, got)
		}
		if again, err := Parse(ts.String()); err != nil || again != ts {
			t.Fatalf("Parse(String()) = %+v, %v; want %+v", again, err, ts)
		}
	})
}
