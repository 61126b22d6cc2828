package rules

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

func TestReprValue(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"none", nil, "None"},
		{"true", true, "True"},
		{"false", false, "False"},
		{"string", "it's", `"it's"`},
		{"int_number", json.Number("42"), "42"},
		{"negative_zero_int", json.Number("-0"), "0"},
		{"big_int", json.Number("123456789012345678901234567890"), "123456789012345678901234567890"},
		{"float_number", json.Number("1.50"), "1.5"},
		{"exp_number", json.Number("1e5"), "100000.0"},
		{"tiny_number", json.Number("1e-5"), "1e-05"},
		{"inf_number", json.Number("1e400"), "inf"},
		{"neg_inf_number", json.Number("-1e400"), "-inf"},
		{"float64", 0.1, "0.1"},
		{"float_whole", 3.0, "3.0"},
		{"nan", math.NaN(), "nan"},
		{"inf", math.Inf(-1), "-inf"},
		{"go_int", 7, "7"},
		{"go_uint", uint8(7), "7"},
		{"list", []any{"x", json.Number("1"), nil, true, []any{}}, "['x', 1, None, True, []]"},
		{"strings", []string{"a", "b'"}, `['a', "b'"]`},
		{"dict", map[string]any{"b": json.Number("2"), "a": "x"}, "{'a': 'x', 'b': 2}"},
		{"ordered_dict", pyjson.Object{{Key: "z", Value: nil}, {Key: "a", Value: false}}, "{'z': None, 'a': False}"},
		{"empty_dict", map[string]any{}, "{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReprValue(tt.in); got != tt.want {
				t.Errorf("ReprValue(%#v) = %s; want %s", tt.in, got, tt.want)
			}
		})
	}
}
