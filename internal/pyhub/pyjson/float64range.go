package pyjson

import (
	"bytes"
	"errors"
	"strconv"
)

// errBeyondFloat64 stops a walk of BeyondFloat64 at the first number
// beyond float64's range.
var errBeyondFloat64 = errors.New("pyjson: number beyond float64's range")

// BeyondFloat64 reports whether raw, one valid JSON text, holds a number
// beyond float64's range (1e400): json.Valid accepts it, but
// encoding/json, and the go-sdk's decoder, refuse to decode it into a
// value. The scanner walks raw as Members checks a value; only a number
// with an exponent or of more than 300 digits can be beyond the range, so
// only those are parsed. Text that is not valid JSON holds none.
func BeyondFloat64(raw []byte) bool {
	p := &parser{data: raw, float64Range: true}
	return errors.Is(p.skip(0, stdMaxDepth), errBeyondFloat64)
}

// beyondFloat64 reports whether number, one number literal, is beyond
// float64's range.
func beyondFloat64(number []byte) bool {
	if !bytes.ContainsAny(number, "eE") && len(number) <= 300 {
		return false
	}
	_, err := strconv.ParseFloat(string(number), 64)
	return err != nil
}
