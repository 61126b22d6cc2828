package pyjson

import "strings"

// style is one of the output dialects.
type style struct {
	// sort orders object members; nil keeps their order.
	sort func(a, b string) int
	// ascii escapes every character outside printable ASCII.
	ascii bool
	// indent, when set, puts each item on its own line.
	indent string
	// itemSep and keySep separate items and a key from its value.
	itemSep, keySep string
	// es6 writes every number as an ECMAScript double (RFC 8785).
	es6 bool
}

var (
	// sortedStyle is json.dumps(v, ensure_ascii=False, sort_keys=True).
	sortedStyle = style{sort: strings.Compare, itemSep: ", ", keySep: ": "}
	// indentStyle is json.dumps(v, indent=2, ensure_ascii=False).
	indentStyle = style{indent: "  ", itemSep: ",", keySep: ": "}
	// compactStyle is json.dumps(v).
	compactStyle = style{ascii: true, itemSep: ", ", keySep: ": "}
	// jcsStyle is RFC 8785.
	jcsStyle = style{sort: compareUTF16, itemSep: ",", keySep: ":", es6: true}
)
