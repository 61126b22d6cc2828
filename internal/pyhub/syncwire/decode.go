package syncwire

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrTrailingData marks an answer that holds more after its JSON value.
var ErrTrailingData = errors.New("data after the JSON value")

// DecodeAnswer reads one answer's JSON into v, numbers as json.Number;
// the error is encoding/json's, or ErrTrailingData.
func DecodeAnswer(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return ErrTrailingData
	}
	return nil
}
