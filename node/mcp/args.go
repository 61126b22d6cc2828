package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/lsnode/lsnode/internal/pyhub/pynum"
)

// transportOnlyArg is an internal transport argument of the Python hub that
// no schema lists; it is dropped silently rather than reported as unknown.
const transportOnlyArg = "wait_for_previous"

// callArgs are the arguments of one tools/call: keys in the order the
// client sent them (a repeated key keeps its first place and takes its
// last value, as a Python dict does) and values as encoding/json decodes
// them with UseNumber, but for lone surrogates, kept as json.loads keeps
// them (argText). A call has a handful of arguments, found by a scan;
// past indexAbove of them a map finds them, so that a body of many keys
// costs linear time.
type callArgs struct {
	args  []callArg
	index map[string]int // key -> position in args; nil up to indexAbove arguments
}

// callArg is one argument: its text and its decoded value.
type callArg struct {
	key string
	raw json.RawMessage
	val any
}

// indexAbove is the number of arguments beyond which callArgs keeps an
// index.
const indexAbove = 16

// parseArgs reads the "arguments" member of tools/call params. Absent and
// null arguments are an empty object; the envelope check has already
// refused anything else that is not an object.
func parseArgs(raw json.RawMessage) (*callArgs, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return &callArgs{}, nil
	}
	members, err := jsonText.Members(raw)
	if err != nil {
		return nil, fmt.Errorf("arguments are not an object")
	}
	a := &callArgs{args: make([]callArg, 0, len(members))}
	for _, m := range members {
		v, err := argText.Value(m.Value)
		if err != nil {
			return nil, fmt.Errorf("decode argument %q: %w", m.Key, err)
		}
		if arg := a.find(m.Key); arg != nil {
			arg.raw, arg.val = m.Value, v
			continue
		}
		a.args = append(a.args, callArg{key: m.Key, raw: m.Value, val: v})
		if a.index != nil || len(a.args) > indexAbove {
			a.indexLast()
		}
	}
	return a, nil
}

// find returns the argument key, or nil.
func (a *callArgs) find(key string) *callArg {
	if a.index != nil {
		if i, ok := a.index[key]; ok {
			return &a.args[i]
		}
		return nil
	}
	for i := range a.args {
		if a.args[i].key == key {
			return &a.args[i]
		}
	}
	return nil
}

// indexLast adds the last argument to the index, building the index
// first when there is none.
func (a *callArgs) indexLast() {
	if a.index == nil {
		a.index = make(map[string]int, 2*len(a.args))
		for i, arg := range a.args {
			a.index[arg.key] = i
		}
		return
	}
	a.index[a.args[len(a.args)-1].key] = len(a.args) - 1
}

// has reports whether the client sent key (null included).
func (a *callArgs) has(key string) bool { return a.find(key) != nil }

// get returns the decoded value of key; nil when absent or null.
func (a *callArgs) get(key string) any {
	if arg := a.find(key); arg != nil {
		return arg.val
	}
	return nil
}

// text returns the JSON text of key; nil when absent.
func (a *callArgs) text(key string) json.RawMessage {
	if arg := a.find(key); arg != nil {
		return arg.raw
	}
	return nil
}

// prepare applies the Python hub's argument handling to a call, in its
// order (docs/compatibility.md#mcp-envelope-and-argument-handling steps 5 to 7): unknown keys, then the
// coercion of integer properties, then the read-only gate, then missing
// required parameters. The errors are the JSON-RPC errors clients see.
func (spec *toolSpec) prepare(a *callArgs, readOnly bool) *jsonrpc.Error {
	var unknown []string
	for _, arg := range a.args {
		if !spec.hasProp(arg.key) && arg.key != transportOnlyArg {
			unknown = append(unknown, "'"+arg.key+"'")
		}
	}
	if len(unknown) > 0 {
		return invalidParams(fmt.Sprintf("Unknown %s %s for tool %s",
			plural("parameter", len(unknown)), strings.Join(unknown, ", "), spec.name))
	}
	for i := range a.args {
		arg := &a.args[i]
		if !spec.isInteger(arg.key) {
			continue
		}
		n, ok := pyIntArg(arg.val)
		if !ok {
			return invalidParams(fmt.Sprintf("Invalid value for parameter '%s'", arg.key))
		}
		arg.val = n
	}
	if readOnly && spec.writer {
		return readOnlyRefusal(spec.name)
	}
	var missing []string
	for _, key := range spec.required {
		if !a.has(key) {
			missing = append(missing, "'"+key+"'")
		}
	}
	if len(missing) > 0 {
		return invalidParams(fmt.Sprintf("Missing required %s %s for tool %s",
			plural("parameter", len(missing)), strings.Join(missing, ", "), spec.name))
	}
	return nil
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func invalidParams(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// pyIntArg is Python's int(v) as the hub applies it to an integer-typed
// argument that is not already an int: JSON integers and booleans stay as
// they are, a float is truncated toward zero, and a string is parsed the
// way int() parses one. The result is a json.Number holding the exact
// integer, or false where int() raises.
func pyIntArg(v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			return x, true
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, false
		}
		n, _ := big.NewFloat(math.Trunc(f)).Int(nil)
		return json.Number(n.String()), true
	case string:
		n, ok := pynum.BigInt(x)
		if !ok {
			return nil, false
		}
		return json.Number(n.String()), true
	}
	return nil, false
}
