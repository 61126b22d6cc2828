package pyrepr

import (
	"encoding/json"
	"testing"
)

// The names are CPython 3.11's type(json.loads(text)).__name__.
func TestTypeName(t *testing.T) {
	for v, want := range map[any]string{
		nil: "NoneType", true: "bool", json.Number("-0"): "int", json.Number("1e3"): "float", json.Number("2.5"): "float",
		json.Number("NaN"): "float", json.Number("-Infinity"): "float", "s": "str",
	} {
		if got := TypeName(v); got != want {
			t.Errorf("TypeName(%#v) = %s, want %s", v, got, want)
		}
	}
	if TypeName([]any{}) != "list" || TypeName(map[string]any{}) != "dict" {
		t.Error("containers")
	}
}
