package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxDepth bounds nesting on parse and encode, near Python's default
// recursion limit, so hostile input cannot exhaust the stack.
const maxDepth = 1000

// parse decodes one JSON text into nil, bool, string, json.Number, []any
// and Object values, keeping member order.
func parse(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the top-level value", ErrSyntax)
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= maxDepth {
		return nil, ErrTooDeep
	}
	if delim == '[' {
		return parseArray(dec, depth+1)
	}
	return parseObject(dec, depth+1)
}

func parseArray(dec *json.Decoder, depth int) (any, error) {
	list := []any{}
	for dec.More() {
		v, err := parseValue(dec, depth)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	return list, closeDelim(dec)
}

func parseObject(dec *json.Decoder, depth int) (any, error) {
	obj := Object{}
	index := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
		}
		key := tok.(string) // the decoder only yields string keys here
		v, err := parseValue(dec, depth)
		if err != nil {
			return nil, err
		}
		if i, dup := index[key]; dup {
			obj[i].Value = v
			continue
		}
		index[key] = len(obj)
		obj = append(obj, Member{Key: key, Value: v})
	}
	return obj, closeDelim(dec)
}

// closeDelim consumes the ']' or '}' that ends a container.
func closeDelim(dec *json.Decoder) error {
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	return nil
}
