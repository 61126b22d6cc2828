package pyjson

// Object is a JSON object whose members are written in slice order (or
// sorted, by the sorting encoders). Keys should be unique; duplicates are
// written as given. Parsing never produces duplicates: like Python's dict,
// a repeated key keeps its first position and takes its last value.
type Object []Member

// Member is one key/value pair of an Object.
type Member struct {
	Key   string
	Value any
}
