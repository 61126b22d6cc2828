package docscheck

import (
	"fmt"
	"regexp"
	"strings"
)

// Command is one `go test` command of a document: the line it is on, its
// text as written, and what it selects.
type Command struct {
	Line     int
	Text     string
	Bench    string   // the -bench pattern, or ""
	Run      string   // the -run pattern, or ""
	Packages []string // the ./dir/ arguments, as written
}

// codeSpan is one inline code span of Markdown.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// Commands lists the `go test` commands in the code spans of a Markdown
// document that select something: a -bench pattern, or a -run pattern
// other than '^$'.
func Commands(markdown string) ([]Command, error) {
	var cmds []Command
	for i, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(line, "|") {
			line = strings.ReplaceAll(line, `\|`, "|")
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			for _, part := range strings.Split(m[1], "&&") {
				at := strings.Index(part, "go test ")
				if at < 0 {
					continue
				}
				c, err := parseCommand(part[at:])
				if err != nil {
					return nil, fmt.Errorf("line %d: %q: %w", i+1, part[at:], err)
				}
				c.Line = i + 1
				if c.Bench != "" || (c.Run != "" && c.Run != "^$") {
					cmds = append(cmds, c)
				}
			}
		}
	}
	return cmds, nil
}

// parseCommand reads one `go test ...` command.
func parseCommand(text string) (Command, error) {
	words, err := shellWords(text)
	if err != nil {
		return Command{}, err
	}
	c := Command{Text: strings.TrimSpace(text)}
	for i := 2; i < len(words); i++ {
		w := words[i]
		name, value, inline := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case strings.HasPrefix(w, "./"):
			c.Packages = append(c.Packages, w)
		case strings.HasPrefix(w, "-") && (name == "bench" || name == "run"):
			if !inline {
				if i+1 == len(words) {
					return Command{}, fmt.Errorf("%s has no pattern", w)
				}
				i++
				value = words[i]
			}
			if name == "bench" {
				c.Bench = value
			} else {
				c.Run = value
			}
		}
	}
	return c, nil
}

// shellWords splits text into words as a POSIX shell does for plain words
// and quoted strings (no expansions).
func shellWords(text string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(text); i++ {
		switch ch := text[i]; ch {
		case ' ', '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case '\'', '"':
			end := strings.IndexByte(text[i+1:], ch)
			if end < 0 {
				return nil, fmt.Errorf("unclosed %c", ch)
			}
			w.WriteString(text[i+1 : i+1+end])
			i += end + 1
			inWord = true
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
