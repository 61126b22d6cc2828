package pyjson

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// encoder appends one value in one style.
type encoder struct {
	style
	buf   []byte
	depth int
}

func encode(v any, s style) ([]byte, error) {
	e := &encoder{style: s}
	if err := e.value(v); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// value dispatches on the common dynamic types first and falls back to
// reflection for the rest.
func (e *encoder) value(v any) error {
	var err error
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case string:
		e.buf = appendString(e.buf, x, e.ascii)
	case json.Number:
		err = e.number(x)
	case float64:
		err = e.float(x, 64)
	case float32:
		err = e.float(float64(x), 32)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case Object:
		err = e.object(x)
	case map[string]any:
		err = e.reflectMap(reflect.ValueOf(x))
	case []any:
		err = e.reflectList(reflect.ValueOf(x))
	case json.RawMessage:
		err = e.raw(x)
	case json.Marshaler:
		err = e.marshaler(x)
	default:
		err = e.reflected(reflect.ValueOf(v))
	}
	return err
}

func (e *encoder) number(n json.Number) error {
	var err error
	if e.es6 {
		var f float64
		if ok, _ := isNumber(string(n)); !ok {
			return fmt.Errorf("%w: number %q", ErrSyntax, string(n))
		}
		if f, err = parseFloat(string(n)); err == nil {
			e.buf, err = appendES6(e.buf, f)
		}
		return err
	}
	e.buf, err = appendNumber(e.buf, n)
	return err
}

func (e *encoder) float(f float64, bitSize int) error {
	var err error
	if e.es6 {
		e.buf, err = appendES6(e.buf, f)
	} else {
		e.buf, err = appendPyFloat(e.buf, f, bitSize)
	}
	return err
}

func (e *encoder) raw(raw json.RawMessage) error {
	if raw == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if e.sort == nil && !e.es6 {
		// A failed attempt may have appended (or dropped the buffer, as a
		// refused number does); what was written before it is intact in
		// saved.
		saved, depth := e.buf, e.depth
		if e.transcode(raw) == nil {
			return nil
		}
		e.buf, e.depth = saved, depth
	}
	v, err := parse(raw)
	if err != nil {
		return err
	}
	return e.value(v)
}

func (e *encoder) marshaler(m json.Marshaler) error {
	if rv := reflect.ValueOf(m); rv.Kind() == reflect.Pointer && rv.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	raw, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	return e.raw(raw)
}

// enter guards against runaway nesting (and cycles, which Python refuses).
func (e *encoder) enter() error {
	if e.depth++; e.depth > maxDepth {
		return ErrTooDeep
	}
	return nil
}

func (e *encoder) object(members Object) error {
	if len(members) == 0 {
		e.buf = append(e.buf, "{}"...)
		return nil
	}
	if err := e.enter(); err != nil {
		return err
	}
	if e.sort != nil {
		members = slices.Clone(members)
		for i := range members {
			members[i].Key = validKey(members[i].Key)
		}
		slices.SortStableFunc(members, func(a, b Member) int { return e.sort(a.Key, b.Key) })
	}
	e.buf = append(e.buf, '{')
	for i, m := range members {
		e.separate(i)
		e.buf = appendString(e.buf, m.Key, e.ascii)
		e.buf = append(e.buf, e.keySep...)
		if err := e.value(m.Value); err != nil {
			return err
		}
	}
	e.close('}')
	return nil
}

func (e *encoder) array(n int, item func(int) any) error {
	if n == 0 {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '[')
	for i := range n {
		e.separate(i)
		if err := e.value(item(i)); err != nil {
			return err
		}
	}
	e.close(']')
	return nil
}

// separate writes what precedes item i of a container.
func (e *encoder) separate(i int) {
	if i > 0 {
		e.buf = append(e.buf, e.itemSep...)
	}
	e.newline()
}

func (e *encoder) close(delim byte) {
	e.depth--
	e.newline()
	e.buf = append(e.buf, delim)
}

func (e *encoder) newline() {
	if e.indent != "" {
		e.buf = append(e.buf, '\n')
		e.buf = append(e.buf, strings.Repeat(e.indent, e.depth)...)
	}
}

// reflected handles named and composite types the type switch does not.
func (e *encoder) reflected(rv reflect.Value) error {
	switch rv.Kind() {
	case reflect.Bool:
		return e.value(rv.Bool())
	case reflect.String:
		return e.value(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, rv.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return e.float(rv.Float(), rv.Type().Bits())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return e.value(nil)
		}
		return e.value(rv.Elem().Interface())
	case reflect.Map:
		return e.reflectMap(rv)
	case reflect.Slice, reflect.Array:
		return e.reflectList(rv)
	case reflect.Struct:
		return e.viaEncodingJSON(rv.Interface())
	default:
		return fmt.Errorf("%w: %s", ErrUnsupported, rv.Type())
	}
	return nil
}

func (e *encoder) reflectMap(rv reflect.Value) error {
	if rv.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("%w: map key type %s", ErrUnsupported, rv.Type().Key())
	}
	if rv.IsNil() {
		return e.value(nil)
	}
	return e.object(mapMembers(rv))
}

func (e *encoder) reflectList(rv reflect.Value) error {
	if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return e.viaEncodingJSON(rv.Interface()) // []byte: base64, as encoding/json
	}
	if rv.Kind() == reflect.Slice && rv.IsNil() {
		return e.value(nil)
	}
	return e.array(rv.Len(), func(i int) any { return rv.Index(i).Interface() })
}

// viaEncodingJSON encodes v with encoding/json, then re-encodes the result
// in this encoder's style.
func (e *encoder) viaEncodingJSON(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return e.raw(raw)
}

// mapMembers lists a string-keyed map as members sorted by key: Go maps
// have no order, and a sorted one is deterministic.
func mapMembers(rv reflect.Value) Object {
	members := make(Object, 0, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		members = append(members, Member{Key: iter.Key().String(), Value: iter.Value().Interface()})
	}
	slices.SortFunc(members, func(a, b Member) int { return strings.Compare(a.Key, b.Key) })
	return members
}
