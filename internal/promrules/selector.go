package promrules

import (
	"regexp"
	"strconv"
	"strings"
)

// Selector is one series selector of an expression: a metric name and the
// label matchers in braces after it.
type Selector struct {
	Name     string
	Matchers []Matcher
}

// Matcher is one label matcher: Op is =, !=, =~ or !~.
type Matcher struct {
	Label, Op, Value string
}

var (
	selectorRE = regexp.MustCompile(`\b([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?`)
	matcherRE  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*")`)
)

// Selectors returns the selectors in expr whose metric name starts with
// prefix ("lsnode_"), in order of appearance.
func Selectors(expr, prefix string) []Selector {
	var out []Selector
	for _, m := range selectorRE.FindAllStringSubmatch(expr, -1) {
		if !strings.HasPrefix(m[1], prefix) {
			continue
		}
		s := Selector{Name: m[1]}
		for _, mm := range matcherRE.FindAllStringSubmatch(m[2], -1) {
			v, err := strconv.Unquote(mm[3])
			if err != nil {
				v = mm[3][1 : len(mm[3])-1]
			}
			s.Matchers = append(s.Matchers, Matcher{Label: mm[1], Op: mm[2], Value: v})
		}
		out = append(out, s)
	}
	return out
}

// Matches reports whether a series of the selector's metric with these
// labels is selected; a missing label matches as "", as in Prometheus.
func (s Selector) Matches(labels map[string]string) bool {
	for _, m := range s.Matchers {
		v := labels[m.Label]
		switch m.Op {
		case "=":
			if v != m.Value {
				return false
			}
		case "!=":
			if v == m.Value {
				return false
			}
		case "=~", "!~":
			re, err := regexp.Compile("^(?:" + m.Value + ")$")
			if err != nil || re.MatchString(v) != (m.Op == "=~") {
				return false
			}
		}
	}
	return true
}

// String writes the selector as an expression does.
func (s Selector) String() string {
	if len(s.Matchers) == 0 {
		return s.Name
	}
	out := s.Name + "{"
	for i, m := range s.Matchers {
		if i > 0 {
			out += ", "
		}
		out += m.Label + m.Op + strconv.Quote(m.Value)
	}
	return out + "}"
}
