package pynum

import (
	"regexp"
	"testing"
)

// numberRE is CPython's json.scanner.NUMBER_RE.
var numberRE = regexp.MustCompile(`^(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// sameAsNumberRE fails unless NumberLen matches what NUMBER_RE matches,
// with int() for a bare integer part and float() otherwise.
func sameAsNumberRE(t *testing.T, s string) {
	t.Helper()
	n, float := NumberLen(s)
	m := numberRE.FindStringSubmatch(s)
	switch {
	case m == nil && n != 0:
		t.Fatalf("NumberLen(%q) = %d, NUMBER_RE does not match", s, n)
	case m != nil && (n != len(m[0]) || float != (m[2] != "" || m[3] != "")):
		t.Fatalf("NumberLen(%q) = %d, %v; NUMBER_RE matches %q", s, n, float, m[0])
	}
	if bn, bfloat := NumberLen([]byte(s)); bn != n || bfloat != float {
		t.Fatalf("NumberLen of the bytes of %q = %d, %v; of the string %d, %v", s, bn, bfloat, n, float)
	}
}

var numberSeeds = []string{
	"0", "-0", "7", "-12", "123", "1.5", "1.", "1.e5", "1e", "1e+", "1e-7", "1E+07", "01", "-", "--1", "+1", ".5",
	"0.0e0x", "12.34.5", "9e9e9", "1,2", "", "NaN", "-Infinity", "1x", "0x10",
}

func TestNumberLen(t *testing.T) {
	for _, s := range numberSeeds {
		sameAsNumberRE(t, s)
	}
}

func FuzzNumberLen(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s)
	}
	f.Fuzz(sameAsNumberRE)
}
