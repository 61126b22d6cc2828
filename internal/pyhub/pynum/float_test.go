package pynum

import (
	"math"
	"testing"
)

// The expected values are CPython 3.11's float() of each text.
func TestFloat(t *testing.T) {
	good := map[string]float64{
		"0": 0, "2.5": 2.5, " 1e3 ": 1000, "1.": 1, ".5": 0.5, "-.5e-2": -0.005,
		"1_5": 15, "1_000.000_1": 1000.0001, "1e1_0": 1e10,
		"\u0661.\u0665": 1.5, "\uff11\uff15": 15, "\u00a01.5\u3000": 1.5, "\U0001D7FF.5": 9.5,
		"inf": math.Inf(1), "-Infinity": math.Inf(-1), "+INF": math.Inf(1), "iNfInItY": math.Inf(1),
		"1e400": math.Inf(1), "-1e400": math.Inf(-1), "1e-400": 0, "0e0": 0,
	}
	for in, want := range good {
		if got, err := Float(in); err != nil || got != want {
			t.Errorf("Float(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if got, err := Float("-0"); err != nil || got != 0 || !math.Signbit(got) {
		t.Errorf("Float(-0) = %v, %v; want -0.0", got, err)
	}
	if got, err := Float(" NaN "); err != nil || !math.IsNaN(got) {
		t.Errorf("Float(NaN) = %v, %v", got, err)
	}
	for _, in := range []string{"", " ", "0x10", "0x1p4", "1__0", "1_.5", "1._5", "_1", "1_", "1_e5", "1e", "1e+",
		".", "+.e1", "+", "in f", "infinit", "nan1", "1.5.2", "1 2", " 1\x1c", "\x1f2", "\u00b2", "1e5_", "--1",
		"+-1", "infinityy", "1,5"} {
		if _, err := Float(in); err == nil {
			t.Errorf("Float(%q) accepted", in)
		}
	}
	if _, err := Float("soon"); err == nil || err.Error() != "could not convert string to float: 'soon'" {
		t.Errorf("Float(soon) error %v", err)
	}
}
