package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// Repr is Python's repr() of a str (see pyrepr.String).
func Repr(s string) string { return pyrepr.String(s) }

// ReprValue is Python's repr() of a value decoded from JSON: strings via
// Repr, numbers as Python prints the int or float json.loads makes of
// them, True, False, None, and lists and dicts as Python prints them (Go
// maps with sorted keys).
func ReprValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return Repr(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		return reprNumber(x)
	case float64:
		return reprFloat(x)
	case float32:
		return reprFloat(float64(x))
	case []any:
		return reprList(len(x), func(i int) any { return x[i] })
	case []string:
		return reprList(len(x), func(i int) any { return x[i] })
	case pyjson.Object:
		return reprDict(x)
	case map[string]any:
		return reprDict(sortedMembers(x))
	}
	if rv := reflect.ValueOf(v); rv.CanInt() {
		return strconv.FormatInt(rv.Int(), 10)
	} else if rv.CanUint() {
		return strconv.FormatUint(rv.Uint(), 10)
	}
	return fmt.Sprint(v)
}

func reprNumber(n json.Number) string {
	text, err := pyjson.Dumps(n)
	switch {
	case err == nil:
		return string(text)
	case errors.Is(err, pyjson.ErrUnsupported): // overflows a float: Python has inf
		if strings.HasPrefix(string(n), "-") {
			return "-inf"
		}
		return "inf"
	default: // not a number literal at all; show it as given
		return string(n)
	}
}

func reprFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	text, _ := pyjson.Dumps(f) // finite floats always encode
	return string(text)
}

func reprList(n int, item func(int) any) string {
	parts := make([]string, n)
	for i := range n {
		parts[i] = ReprValue(item(i))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func reprDict(members pyjson.Object) string {
	parts := make([]string, len(members))
	for i, m := range members {
		parts[i] = Repr(m.Key) + ": " + ReprValue(m.Value)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedMembers(m map[string]any) pyjson.Object {
	members := make(pyjson.Object, 0, len(m))
	for k, v := range m {
		members = append(members, pyjson.Member{Key: k, Value: v})
	}
	slices.SortFunc(members, func(a, b pyjson.Member) int { return strings.Compare(a.Key, b.Key) })
	return members
}
