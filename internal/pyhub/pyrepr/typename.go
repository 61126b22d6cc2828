package pyrepr

import (
	"encoding/json"
	"fmt"
	"strings"
)

// TypeName is the name of the Python type json.loads makes of a decoded
// JSON value, as Python's error texts name it: NoneType, bool, int or
// float (a json.Number with a fraction or an exponent, NaN or an
// infinity), str, list, dict; any other Go value by its Go type.
func TypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") || x == "NaN" || x == "Infinity" || x == "-Infinity" {
			return "float"
		}
		return "int"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}
