package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
)

// The tokens file (--tokens-file) maps agent tokens to what they may do:
//
//	{"tokens": [
//	  {"token": "…", "name": "pi", "write_as": ["pi@laptop"], "read": "mailbox"},
//	  {"token": "…", "name": "ci", "write_as": ["ci-*"],
//	   "read": {"mailbox": true, "streams": ["project/lsnode"]}},
//	  {"token": "…", "name": "dashboard", "read": "all"},
//	  {"token": "…", "name": "ops", "admin": true}
//	]}
//
// "read" is "all", "mailbox" (the default), "none", or an object with
// "mailbox" (bool), "agents" (patterns: read those names' mailboxes too)
// and "streams" (patterns: read whole streams). A mailbox is the events
// addressed to or written by a name, plus broadcasts. Patterns are exact
// names or path.Match globs. "admin" grants everything (the shared token's
// access) and excludes write_as and read.

// tokensFile is the decoded file.
type tokensFile struct {
	Tokens *[]tokenEntry `json:"tokens"`
}

// tokenEntry is one entry as written.
type tokenEntry struct {
	Token   string    `json:"token"`
	Name    string    `json:"name"`
	WriteAs []string  `json:"write_as"`
	Read    *readSpec `json:"read"`
	Admin   bool      `json:"admin"`
}

// readSpec is the "read" value: a keyword or an object.
type readSpec struct {
	All     bool
	Mailbox bool
	Agents  []string
	Streams []string
}

// Read scope keywords.
const (
	readAll     = "all"
	readMailbox = "mailbox"
	readNone    = "none"
)

func (r *readSpec) UnmarshalJSON(b []byte) error {
	var word string
	if err := json.Unmarshal(b, &word); err == nil {
		switch word {
		case readAll:
			*r = readSpec{All: true}
		case readMailbox:
			*r = readSpec{Mailbox: true}
		case readNone:
			*r = readSpec{}
		default:
			return fmt.Errorf("read %s: want %q, %q, %q or an object", strconv.Quote(word), readAll, readMailbox, readNone)
		}
		return nil
	}
	var obj struct {
		Mailbox bool     `json:"mailbox"`
		Agents  []string `json:"agents"`
		Streams []string `json:"streams"`
	}
	if err := strictDecode(b, &obj); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	*r = readSpec{Mailbox: obj.Mailbox, Agents: obj.Agents, Streams: obj.Streams}
	return nil
}

// strictDecode decodes exactly one JSON value, refusing unknown fields and
// trailing data.
func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}

// LoadTokens reads and checks a tokens file. The error names the file and
// the entry at fault, never a token.
func LoadTokens(file string) (*TokenTable, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	t, err := ParseTokens(b)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", file, err)
	}
	return t, nil
}

// ParseTokens decodes and checks the contents of a tokens file.
func ParseTokens(b []byte) (*TokenTable, error) {
	var f tokensFile
	if err := strictDecode(b, &f); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if f.Tokens == nil {
		return nil, errors.New(`missing "tokens" (want {"tokens": [...]})`)
	}
	t := &TokenTable{}
	seenToken := map[string]int{}
	seenName := map[string]int{}
	for i, e := range *f.Tokens {
		where := entryName(i, e.Name)
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if j, dup := seenToken[e.Token]; dup {
			return nil, fmt.Errorf("%s: same token as %s", where, entryName(j, (*f.Tokens)[j].Name))
		}
		seenToken[e.Token] = i
		if e.Name != "" {
			if j, dup := seenName[e.Name]; dup {
				return nil, fmt.Errorf("%s: same name as tokens[%d]", where, j)
			}
			seenName[e.Name] = i
		}
		t.add(e)
	}
	return t, nil
}

// entryName names an entry in errors and logs: its index and label.
func entryName(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("tokens[%d]", i)
	}
	return fmt.Sprintf("tokens[%d] (%s)", i, strconv.Quote(name))
}

func (e *tokenEntry) check() error {
	switch {
	case e.Token == "":
		return errors.New("empty token")
	case strings.ContainsFunc(e.Token, func(r rune) bool { return r <= ' ' || r > '~' }):
		return errors.New("the token must be printable ASCII without spaces (it is sent as \"Authorization: Bearer <token>\")")
	case e.Admin && (e.WriteAs != nil || e.Read != nil):
		return errors.New(`an admin token may do everything: drop "write_as" and "read"`)
	}
	if err := checkPatterns("write_as", e.WriteAs); err != nil {
		return err
	}
	if e.Read != nil {
		if err := checkPatterns("read.agents", e.Read.Agents); err != nil {
			return err
		}
		return checkPatterns("read.streams", e.Read.Streams)
	}
	return nil
}

// checkPatterns refuses empty and malformed patterns.
func checkPatterns(field string, patterns []string) error {
	for i, p := range patterns {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("%s[%d] is empty", field, i)
		}
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("%s[%d] %s: %w", field, i, strconv.Quote(p), err)
		}
	}
	return nil
}
