package pynum

// NumberLen reads a JSON number at the start of s as Python's json
// scanner does (its NUMBER_RE, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?,
// matched as long as it goes): n is the length of the match, 0 when s
// does not start with a number, and float reports whether json.loads
// makes a float of it (it has a fraction or an exponent) rather than an
// int. A point or an exponent marker without digits after it is not part
// of the match.
func NumberLen[T ~string | ~[]byte](s T) (n int, float bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digitsEnd(s, i)
	default:
		return 0, false
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i, float = digitsEnd(s, i+1), true
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			i, float = digitsEnd(s, j), true
		}
	}
	return i, float
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsEnd is the end of the run of ASCII digits of s from i.
func digitsEnd[T ~string | ~[]byte](s T, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
