package store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// The search syntax. A query is words, which must all occur:
//
//	deploy failed          events with both words, anywhere
//	"deploy failed"        the phrase: the words next to each other, in order
//	deploy*                a word that starts with deploy (a prefix)
//	deploy OR rollback     either
//	deploy NOT staging     deploy, but not staging
//	(deploy OR ship) prod  grouping
//	from_agent:ci-bot      a word or phrase in one field: body, type, stream,
//	                       room, from_agent or to_agent (also before a group)
//
// AND, OR and NOT are operators only in capitals; and, or, not are words.
// Every word and phrase is quoted before it reaches SQLite's FTS5, so no
// other character has a meaning: a word such as agent-12, c++ or
// "http://x" is matched as the words it holds (agent 12, c, http x),
// which FTS5 finds next to each other. Words are letters and digits
// (unicode61: case and diacritics folded); a bare word with neither, such
// as "-", is ignored. A query is at most MaxSearchQueryChars long with at
// most MaxSearchTerms words and phrases. Anything else (an unbalanced
// quote or parenthesis, an operator without a term on each side, an
// empty group) is refused with a SearchQueryError, before any search.

// SearchQueryError is a search query that does not follow the search
// syntax. It is an ErrInvalid; its text names the query and what is
// wrong with it.
type SearchQueryError struct {
	Query  string
	Reason string
}

func (e *SearchQueryError) Error() string {
	return fmt.Sprintf("search query %s is malformed: %s", rules.Repr(e.Query), e.Reason)
}

// Unwrap makes the error an ErrInvalid.
func (e *SearchQueryError) Unwrap() error { return ErrInvalid }

// searchFields are the indexed columns a field filter may name.
var searchFields = []string{"body", "type", "stream", "room", "from_agent", "to_agent"}

// compileSearch checks a query against the search syntax and returns the
// FTS5 expression it stands for: every word and phrase quoted, every
// operator's operands in parentheses.
func compileSearch(query string) (string, error) {
	if strings.TrimSpace(query) == "" {
		return "", invalidf("query must be a non-empty string")
	}
	if utf8.RuneCountInString(query) > MaxSearchQueryChars {
		return "", invalidf("query exceeds maximum length of %d characters", MaxSearchQueryChars)
	}
	toks, err := lexSearch(query)
	if err == nil {
		p := &searchParser{toks: toks}
		var expr string
		if expr, err = p.parse(); err == nil {
			return expr, nil
		}
	}
	return "", &SearchQueryError{Query: query, Reason: err.Error()}
}

// searchSyntax is the reason a query breaks the syntax: the only error
// the lexer and the parser return.
type searchSyntax string

func (s searchSyntax) Error() string { return string(s) }

// searchToken is one token of a query.
type searchToken struct {
	kind   byte   // 'w' word, 'p' phrase, 'f' field filter, '(' , ')', '&' AND, '|' OR, '!' NOT
	text   string // the word, phrase or field
	prefix bool   // a trailing *
}

func lexSearch(q string) ([]searchToken, error) {
	if strings.IndexFunc(q, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) }) >= 0 {
		return nil, searchSyntax("it contains control characters")
	}
	var toks []searchToken
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case r == '(' || r == ')':
			toks = append(toks, searchToken{kind: byte(r)})
			i++
		case r == '"':
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				return nil, searchSyntax("a quote is not closed")
			}
			text := q[i+1 : i+1+end]
			if !searchable(text) {
				return nil, searchSyntax(fmt.Sprintf("the phrase %s has no letters or digits", rules.Repr(text)))
			}
			i += end + 2
			t := searchToken{kind: 'p', text: text}
			if strings.HasPrefix(q[i:], "*") {
				t.prefix = true
				i++
			}
			toks = append(toks, t)
		default:
			end := strings.IndexFunc(q[i:], func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(`()"`, r) })
			if end < 0 {
				end = len(q) - i
			}
			word := q[i : i+end]
			i += end
			if field, rest, ok := strings.Cut(word, ":"); ok && isSearchField(field) {
				toks = append(toks, searchToken{kind: 'f', text: strings.ToLower(field)})
				if word = rest; word == "" {
					continue
				}
			}
			switch word {
			case "AND":
				toks = append(toks, searchToken{kind: '&'})
				continue
			case "OR":
				toks = append(toks, searchToken{kind: '|'})
				continue
			case "NOT":
				toks = append(toks, searchToken{kind: '!'})
				continue
			}
			t := searchToken{kind: 'w', text: word}
			if w, ok := strings.CutSuffix(word, "*"); ok {
				t.text, t.prefix = w, true
			}
			if searchable(t.text) {
				toks = append(toks, t)
			}
		}
	}
	return toks, nil
}

// searchable reports whether s holds a character the index keeps: a
// letter, a digit or a private-use character (unicode61's token
// characters).
func searchable(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
	}) >= 0
}

func isSearchField(s string) bool {
	for _, f := range searchFields {
		if strings.EqualFold(s, f) {
			return true
		}
	}
	return false
}

// searchParser turns tokens into an FTS5 expression by the grammar
//
//	or      = and { "OR" and }
//	and     = not { ["AND"] not }
//	not     = unary { "NOT" unary }
//	unary   = [field] primary
//	primary = word | phrase | "(" or ")"
type searchParser struct {
	toks  []searchToken
	pos   int
	terms int
	field bool // inside a field filter: filters do not nest
}

var opNames = map[byte]string{'&': "AND", '|': "OR", '!': "NOT"}

func (p *searchParser) peek() byte {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].kind
	}
	return 0
}

func (p *searchParser) parse() (string, error) {
	if len(p.toks) == 0 {
		return "", searchSyntax("it has no words to search for")
	}
	expr, err := p.or()
	if err != nil {
		return "", err
	}
	if p.peek() == ')' {
		return "", searchSyntax("a parenthesis is closed that was not opened")
	}
	return expr, nil
}

func (p *searchParser) or() (string, error) {
	return p.binary('|', p.and)
}

func (p *searchParser) and() (string, error) {
	return p.binary('&', p.not)
}

func (p *searchParser) not() (string, error) {
	return p.binary('!', p.unary)
}

// binary parses next { op next }; for AND, juxtaposition counts as the
// operator.
func (p *searchParser) binary(op byte, next func() (string, error)) (string, error) {
	left, err := next()
	if err != nil {
		return "", err
	}
	for {
		k := p.peek()
		implicit := op == '&' && (k == 'w' || k == 'p' || k == 'f' || k == '(')
		if k != op && !implicit {
			return left, nil
		}
		if !implicit {
			if p.pos++; p.missingOperand() {
				return "", searchSyntax(opNames[op] + " needs a term on each side")
			}
		}
		right, err := next()
		if err != nil {
			return "", err
		}
		left = "(" + left + " " + opNames[op] + " " + right + ")"
	}
}

// missingOperand reports whether the parser stands where a term is
// missing: at the end, before an operator or a closing parenthesis.
func (p *searchParser) missingOperand() bool {
	switch p.peek() {
	case 0, ')', '&', '|', '!':
		return true
	}
	return false
}

func (p *searchParser) unary() (string, error) {
	if p.peek() != 'f' {
		return p.primary()
	}
	field := p.toks[p.pos].text
	if p.field {
		return "", searchSyntax("field filters do not nest")
	}
	p.pos++
	if p.missingOperand() {
		return "", searchSyntax(field + ": needs a word, a phrase or a group after it")
	}
	p.field = true
	expr, err := p.primary()
	p.field = false
	if err != nil {
		return "", err
	}
	return field + " : " + expr, nil
}

func (p *searchParser) primary() (string, error) {
	switch k := p.peek(); k {
	case 'w', 'p':
		t := p.toks[p.pos]
		p.pos++
		if p.terms++; p.terms > MaxSearchTerms {
			return "", searchSyntax(fmt.Sprintf("it has more than %d words and phrases", MaxSearchTerms))
		}
		out := `"` + t.text + `"` // the lexer leaves no quote in a word or phrase
		if t.prefix {
			out += "*"
		}
		return out, nil
	case '(':
		p.pos++
		if p.peek() == ')' {
			return "", searchSyntax("a group () holds no words")
		}
		expr, err := p.or()
		if err != nil {
			return "", err
		}
		if p.peek() != ')' {
			return "", searchSyntax("a parenthesis is opened that is not closed")
		}
		p.pos++
		return "(" + expr + ")", nil
	case 0: // only after "(": an operator or a field at the end is found earlier
		return "", searchSyntax("a parenthesis is opened that is not closed")
	case ')':
		return "", searchSyntax("a parenthesis is closed that was not opened")
	default:
		return "", searchSyntax(opNames[k] + " needs a term on each side")
	}
}
