package pyrepr

// IllFormed is the ill-formed UTF-8 sequence at the start of some bytes,
// delimited as Python's UTF-8 codec delimits it (Unicode's "maximal
// subpart" practice): Len bytes, at least one, and why it is ill-formed.
type IllFormed struct {
	Len    int
	Reason string // "invalid start byte", "invalid continuation byte" or "unexpected end of data"
}

// IllFormedAt delimits the ill-formed sequence that starts s, which must
// not start with a well-formed one: its lead byte and the continuation
// bytes, in the ranges that lead allows, that follow it.
func IllFormedAt[T ~string | ~[]byte](s T) IllFormed {
	lo, hi := byte(0x80), byte(0xBF) // the range of the next byte
	var n int                        // the length the lead byte announces
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		n = 2
	case c == 0xE0:
		n, lo = 3, 0xA0
	case c == 0xED:
		n, hi = 3, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		n = 3
	case c == 0xF0:
		n, lo = 4, 0x90
	case c == 0xF4:
		n, hi = 4, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		n = 4
	default:
		return IllFormed{Len: 1, Reason: "invalid start byte"}
	}
	i := 1
	for ; i < n && i < len(s) && s[i] >= lo && s[i] <= hi; i++ {
		lo, hi = 0x80, 0xBF
	}
	if i == len(s) {
		return IllFormed{Len: i, Reason: "unexpected end of data"}
	}
	return IllFormed{Len: i, Reason: "invalid continuation byte"}
}
