package pyrepr

import "encoding/json"

// Truthy is Python's bool() of a decoded JSON value: false for null,
// false, "", 0, [] and {}, true for anything else. A json.Number that does
// not parse as a float is a non-empty number text, so it is true.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}
