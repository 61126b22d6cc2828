package rules

import (
	"encoding/json"
	"math"
	"testing"
)

func TestSinceCreatedAt(t *testing.T) {
	bad := func(repr string) string {
		return "since_created_at=" + repr + " is not a valid ISO-8601 date or UTC datetime (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"
	}
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "", ""},
		{"empty", "", "", ""},
		{"date", "2026-07-02", "2026-07-02", ""},
		{"datetime", "2026-07-02T21:14:09Z", "2026-07-02T21:14:09Z", ""},
		{"offset_normalised", "2026-07-02T21:14:09+00:00", "2026-07-02T21:14:09Z", ""},
		{"stripped", " 2026-07-02\n", "2026-07-02", ""},
		{"leap_day", "2024-02-29", "2024-02-29", ""},
		{"year_one", "0001-01-01", "0001-01-01", ""},
		{"number", json.Number("2026"), "", "since_created_at must be a string"},
		{"bool", true, "", "since_created_at must be a string"},
		{"list", []any{"2026-07-02"}, "", "since_created_at must be a string"},
		{"blank", "   ", "", bad("''")},
		{"not_leap", "2023-02-29", "", bad("'2023-02-29'")},
		{"april_31", "2026-04-31", "", bad("'2026-04-31'")},
		{"month_13", "2026-13-01", "", bad("'2026-13-01'")},
		{"year_zero", "0000-01-01", "", bad("'0000-01-01'")},
		{"partial", "2026-07", "", bad("'2026-07'")},
		{"naive", "2026-07-02T21:14:09", "", bad("'2026-07-02T21:14:09'")},
		{"other_offset", "2026-07-02T21:14:09+01:00", "", bad("'2026-07-02T21:14:09+01:00'")},
		{"fraction", "2026-07-02T21:14:09.5Z", "", bad("'2026-07-02T21:14:09.5Z'")},
		{"space", "2026-07-02 21:14:09Z", "", bad("'2026-07-02 21:14:09Z'")},
		{"hour_24", "2026-07-02T24:00:00Z", "", bad("'2026-07-02T24:00:00Z'")},
		{"leap_second", "2026-06-30T23:59:60Z", "", bad("'2026-06-30T23:59:60Z'")},
		{"lowercase_z", "2026-07-02T21:14:09z", "", bad("'2026-07-02T21:14:09z'")},
		{"arabic_digits", "٢٠٢٦-07-02", "", bad("'٢٠٢٦-07-02'")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SinceCreatedAt(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("SinceCreatedAt = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestLimit(t *testing.T) {
	const bad = "limit must be a positive integer"
	tests := []struct {
		name    string
		in      any
		want    int
		wantErr string
	}{
		{"nil", nil, 50, ""},
		{"one", json.Number("1"), 1, ""},
		{"go_int", 20, 20, ""},
		{"int64", int64(499), 499, ""},
		{"at_max", json.Number("500"), 500, ""},
		{"clamped", json.Number("501"), 500, ""},
		{"huge", json.Number("123456789012345678901234567890"), 500, ""},
		{"true_is_one", true, 1, ""},
		{"false_is_zero", false, 0, bad},
		{"zero", json.Number("0"), 0, bad},
		{"negative", json.Number("-5"), 0, bad},
		{"huge_negative", json.Number("-123456789012345678901234567890"), 0, bad},
		{"float_literal", json.Number("5.0"), 0, bad},
		{"exp_literal", json.Number("1e2"), 0, bad},
		{"go_float", 5.0, 0, bad},
		{"string", "5", 0, bad},
		{"list", []any{json.Number("5")}, 0, bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Limit(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("Limit = %d; want %d", got, tt.want)
			}
		})
	}
}

func TestAfterSeq(t *testing.T) {
	const bad = "after_seq must be a non-negative integer"
	tests := []struct {
		name    string
		in      any
		want    int64
		wantErr string
	}{
		{"nil", nil, 0, ""},
		{"zero", json.Number("0"), 0, ""},
		{"positive", json.Number("41"), 41, ""},
		{"go_int64", int64(1) << 40, 1 << 40, ""},
		{"huge_saturates", json.Number("123456789012345678901234567890"), math.MaxInt64, ""},
		{"uint64_saturates", uint64(math.MaxUint64), math.MaxInt64, ""},
		{"true", true, 1, ""},
		{"false", false, 0, ""},
		{"negative", json.Number("-1"), 0, bad},
		{"float", json.Number("1.5"), 0, bad},
		{"string", "3", 0, bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AfterSeq(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("AfterSeq = %d; want %d", got, tt.want)
			}
		})
	}
}

func TestTimeoutMS(t *testing.T) {
	const bad = "timeout_ms must be a non-negative number"
	tests := []struct {
		name    string
		in      any
		want    int
		wantErr string
	}{
		{"nil", nil, 60000, ""},
		{"zero", json.Number("0"), 0, ""},
		{"int", json.Number("1500"), 1500, ""},
		{"float", json.Number("0.5"), 1, ""},
		{"float_whole", 250.0, 250, ""},
		{"at_max", json.Number("300000"), 300000, ""},
		{"clamped", json.Number("300001"), 300000, ""},
		{"clamped_float", json.Number("1e10"), 300000, ""},
		{"overflow_is_inf", json.Number("1e400"), 300000, ""},
		{"true", true, 1, ""},
		{"negative", json.Number("-1"), 0, bad},
		{"negative_float", -0.5, 0, bad},
		{"negative_inf", json.Number("-1e400"), 0, bad},
		{"nan", math.NaN(), 0, bad},
		{"string", "100", 0, bad},
		{"list", []any{}, 0, bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TimeoutMS(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("TimeoutMS = %d; want %d", got, tt.want)
			}
		})
	}
}

func TestOrder(t *testing.T) {
	bad := func(repr string) string { return "order=" + repr + " must be 'asc' or 'desc'" }
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "", ""},
		{"asc", "asc", "asc", ""},
		{"desc", "desc", "desc", ""},
		{"upper_padded", " DESC\n", "desc", ""},
		{"empty", "", "", bad("''")},
		{"unknown_lowered_in_error", " Up ", "", bad("'up'")},
		{"quote", "it's", "", bad(`"it's"`)},
		{"number", json.Number("1"), "", bad("1")},
		{"bool", false, "", bad("False")},
		{"list", []any{"asc"}, "", bad("['asc']")},
		{"dotted_capital_i", "\u0130", "", bad("'i\u0307'")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Order(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("Order = %q; want %q", got, tt.want)
			}
		})
	}
}
