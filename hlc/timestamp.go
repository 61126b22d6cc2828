package hlc

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxCounter is the largest logical counter a stamp can carry: six hex
// digits. A Tick that would pass it steps the millisecond instead.
const MaxCounter = 0xFFFFFF

const (
	msDigits      = 13                               // decimal digits of the wall-time field
	counterDigits = 6                                // hex digits of the counter field
	prefixLen     = msDigits + 1 + counterDigits + 1 // "<ms>-<counter>-"
	maxWallMS     = 9_999_999_999_999                // largest 13-digit millisecond value
	hexDigits     = "0123456789abcdef"
)

// Timestamp is one HLC stamp: wall-clock milliseconds since the Unix epoch,
// a logical counter that orders stamps within one millisecond, and the id
// of the replica that issued it, which breaks the remaining ties.
//
// Its text form is "<ms>-<counter>-<replica>", the ms as 13 zero-padded
// decimal digits and the counter as 6 lowercase hex digits, for example
// "1783038849123-000000-rep_ab12cd34ef56". Plain byte comparison of that
// text orders stamps the way Compare does.
type Timestamp struct {
	WallMS  int64  // Unix milliseconds; 0 <= WallMS <= 9999999999999 when valid
	Counter uint32 // logical counter; <= MaxCounter when valid
	Replica string // issuing replica id; non-empty when valid
}

// Parse reads a stamp in the Python hub's format, the regular expression
// ^(\d{13})-([0-9a-f]{6})-(.+)$. It is stricter than Python's re in two
// ways, both of which would break byte ordering: \d means ASCII digits only,
// and $ does not accept a trailing newline. The replica id must also be
// valid UTF-8, since the hub cannot represent anything else.
//
// On failure the error wraps ErrInvalidStamp and reads
// "not a valid HLC string: <repr>", with <repr> as Python's repr() of s.
func Parse(s string) (Timestamp, error) {
	if len(s) <= prefixLen || s[msDigits] != '-' || s[msDigits+1+counterDigits] != '-' {
		return Timestamp{}, &parseError{input: s}
	}
	ms, ok := parseDecimal(s[:msDigits])
	if !ok {
		return Timestamp{}, &parseError{input: s}
	}
	counter, ok := parseLowerHex(s[msDigits+1 : msDigits+1+counterDigits])
	if !ok {
		return Timestamp{}, &parseError{input: s}
	}
	replica := s[prefixLen:]
	if !validReplica(replica) {
		return Timestamp{}, &parseError{input: s}
	}
	return Timestamp{WallMS: ms, Counter: counter, Replica: replica}, nil
}

// String renders the stamp as fmt.Sprintf("%013d-%06x-%s", ...). Valid
// stamps take a fast path without fmt.
func (t Timestamp) String() string {
	if !t.inRange() {
		return fmt.Sprintf("%013d-%06x-%s", t.WallMS, t.Counter, t.Replica)
	}
	var prefix [prefixLen]byte
	ms := t.WallMS
	for i := msDigits - 1; i >= 0; i-- {
		prefix[i] = byte('0' + ms%10)
		ms /= 10
	}
	prefix[msDigits] = '-'
	c := t.Counter
	for i := msDigits + counterDigits; i > msDigits; i-- {
		prefix[i] = hexDigits[c&0xF]
		c >>= 4
	}
	prefix[prefixLen-1] = '-'

	var b strings.Builder
	b.Grow(prefixLen + len(t.Replica))
	b.Write(prefix[:])
	b.WriteString(t.Replica)
	return b.String()
}

// Compare returns -1, 0 or +1 as t orders before, equal to, or after u:
// by WallMS, then Counter, then Replica bytewise. For valid stamps this is
// exactly the byte order of their String forms, and so the order of the
// hub's TEXT column.
func (t Timestamp) Compare(u Timestamp) int {
	if c := cmp.Compare(t.WallMS, u.WallMS); c != 0 {
		return c
	}
	if c := cmp.Compare(t.Counter, u.Counter); c != 0 {
		return c
	}
	return strings.Compare(t.Replica, u.Replica)
}

// IsZero reports whether t is the zero Timestamp, which stands for "no
// stamp". A clock's initial state (0, 0, replica) is not zero.
func (t Timestamp) IsZero() bool {
	return t == Timestamp{}
}

// inRange reports whether the numeric fields fit their fixed-width text.
func (t Timestamp) inRange() bool {
	return t.WallMS >= 0 && t.WallMS <= maxWallMS && t.Counter <= MaxCounter
}

// after reports whether (ms, counter) of t is past the given pair; the
// replica does not take part, as in the hub's observe.
func (t Timestamp) after(ms int64, counter uint32) bool {
	return t.WallMS > ms || (t.WallMS == ms && t.Counter > counter)
}

// validReplica is the `(.+)$` group: non-empty, no newline, valid UTF-8.
func validReplica(r string) bool {
	return r != "" && strings.IndexByte(r, '\n') < 0 && utf8.ValidString(r)
}

func parseDecimal(s string) (int64, bool) {
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	return n, true
}

func parseLowerHex(s string) (uint32, bool) {
	var n uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint32(c-'a'+10)
		default:
			return 0, false
		}
	}
	return n, true
}
