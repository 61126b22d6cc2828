package pyjson

import (
	"encoding/json"
	"math"
	"testing"
)

// floatCases pairs IEEE-754 bit patterns with CPython 3.11's repr() and
// Node's String() (ECMAScript Number::toString, which RFC 8785 uses).
// Many come from RFC 8785 Appendix B.
var floatCases = []struct {
	bits    uint64
	py, es6 string
}{
	{0x0000000000000000, "0.0", "0"},
	{0x8000000000000000, "-0.0", "0"},
	{0x3ff0000000000000, "1.0", "1"},
	{0xbff0000000000000, "-1.0", "-1"},
	{0x3fb999999999999a, "0.1", "0.1"},
	{0x3fe0000000000000, "0.5", "0.5"},
	{0x3ee4f8b588e368f1, "1e-05", "0.00001"},
	{0x3f1a36e2eb1c432d, "0.0001", "0.0001"},
	{0x3f202c9dedbc309d, "0.0001234", "0.0001234"},
	{0x4341c37937e08000, "1e+16", "10000000000000000"},
	{0x430c6bf526340000, "1000000000000000.0", "1000000000000000"},
	{0x4341c37937e07fff, "9999999999999998.0", "9999999999999998"},
	{0x42dc12218377de40, "123456789012345.0", "123456789012345"},
	{0x43118b54f22aeb00, "1234567890123456.0", "1234567890123456"},
	{0x4345ee2a2eb5a5c4, "1.2345678901234568e+16", "12345678901234568"},
	{0x7e41eb2d66005835, "1.5e+300", "1.5e+300"},
	{0x0000000000000001, "5e-324", "5e-324"},
	{0x8000000000000001, "-5e-324", "-5e-324"},
	{0x7fefffffffffffff, "1.7976931348623157e+308", "1.7976931348623157e+308"},
	{0x4340000000000000, "9007199254740992.0", "9007199254740992"},
	{0xc340000000000000, "-9007199254740992.0", "-9007199254740992"},
	{0x444b1ae4d6e2ef50, "1e+21", "1e+21"},
	{0x4480f0cf064dd592, "1e+22", "1e+22"},
	{0x44b52d02c7e14af6, "1e+23", "1e+23"},
	{0x44b52d02c7e14af5, "9.999999999999997e+22", "9.999999999999997e+22"},
	{0x44b52d02c7e14af7, "1.0000000000000001e+23", "1.0000000000000001e+23"},
	{0x444b1ae4d6e2ef4e, "9.999999999999997e+20", "999999999999999700000"},
	{0x444b1ae4d6e2ef4f, "9.999999999999999e+20", "999999999999999900000"},
	{0x4430000000000000, "2.9514790517935283e+20", "295147905179352830000"},
	{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-07", "9.999999999999997e-7"},
	{0x3eb0c6f7a0b5ed8d, "1e-06", "0.000001"},
	{0x3e7ad7f29abcaf48, "1e-07", "1e-7"},
	{0x41b3de4355555553, "333333333.3333332", "333333333.3333332"},
	{0x41b3de4355555554, "333333333.33333325", "333333333.33333325"},
	{0x41b3de4355555555, "333333333.3333333", "333333333.3333333"},
	{0x41b3de4355555556, "333333333.3333334", "333333333.3333334"},
	{0x41b3de4355555557, "333333333.33333343", "333333333.33333343"},
	{0xbecbf647612f3696, "-3.3333333333333333e-06", "-0.0000033333333333333333"},
	{0x43143ff3c1cb0959, "1424953923781206.2", "1424953923781206.2"},
	{0x3fd3333333333334, "0.30000000000000004", "0.30000000000000004"},
	{0x4059000000000000, "100.0", "100"},
	{0x3f30624dd2f1a9fc, "0.00025", "0.00025"},
	{0x400921f9f01b866e, "3.14159", "3.14159"},
	{0x4011666666666666, "4.35", "4.35"},
	{0x3eb0c6f7a0b5ed8d, "1e-06", "0.000001"},
	{0x3c36b082c2148b8e, "1.23e-18", "1.23e-18"},
}

func TestPyFloat(t *testing.T) {
	for _, tt := range floatCases {
		f := math.Float64frombits(tt.bits)
		got, err := appendPyFloat(nil, f, 64)
		if err != nil || string(got) != tt.py {
			t.Errorf("repr(%#016x) = %q, %v; want %q", tt.bits, got, err, tt.py)
		}
		// The same text must come back through a json.Number.
		dumped, err := Dumps(json.Number(tt.py))
		if err != nil || string(dumped) != tt.py {
			t.Errorf("Dumps(json.Number(%q)) = %q, %v", tt.py, dumped, err)
		}
	}
}

func TestES6(t *testing.T) {
	for _, tt := range floatCases {
		f := math.Float64frombits(tt.bits)
		got, err := appendES6(nil, f)
		if err != nil || string(got) != tt.es6 {
			t.Errorf("ES6(%#016x) = %q, %v; want %q", tt.bits, got, err, tt.es6)
		}
	}
}

func TestNumberLiterals(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"7", "7"},
		{"-12", "-12"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"1.0", "1.0"},
		{"1e2", "100.0"},
		{"1E+2", "100.0"},
		{"-0.0", "-0.0"},
		{"1e-400", "0.0"},
		{"-1e-400", "-0.0"},
		{"2.50", "2.5"},
	}
	for _, tt := range tests {
		got, err := appendNumber(nil, json.Number(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("appendNumber(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestFloat32(t *testing.T) {
	// Python has no float32; the shortest text that round-trips the
	// float32 is the sensible rendering, as encoding/json does.
	for f, want := range map[float32]string{0.1: "0.1", 16777216: "16777216.0", 1e-7: "1e-07"} {
		got, err := Dumps(f)
		if err != nil || string(got) != want {
			t.Errorf("Dumps(float32 %v) = %q, %v; want %q", f, got, err, want)
		}
	}
}
