package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// configFile is a configuration file of `lsnode serve` (--config): YAML,
// one mapping per group of `serve -h` (serveFlagGroups: http, mcp,
// replication, ...), each holding flags by their names with values of the
// flags' types. Its values stand under the environment and over the
// defaults (serveEnv); the flags read them through the typed getters
// below, which also record what is wrong with a value. err then reports
// those and every key that no flag read (unknown, or under another
// group), each with its line.
//
// A nil *configFile is no file: every getter returns its default.
type configFile struct {
	path    string
	entries map[string]*configEntry // by "group.flag"
	errs    []configError           // the file's own, found when it was read
}

// configEntry is one setting of the file.
type configEntry struct {
	group, flag string
	line        int
	value       *yaml.Node
	read        bool   // a flag asked for it
	err         string // what is wrong with its value, "" when nothing
}

// configError is one problem of a file, at a line.
type configError struct {
	line int
	msg  string
}

// key is the setting's dotted key, as errors name it.
func (e *configEntry) key() string { return e.group + "." + e.flag }

// groupKey is the key of a group of serveFlagGroups in the file.
func groupKey(g flagGroup) string { return strings.ToLower(g.title) }

// flagGroupKey is the group key that flag belongs under.
func flagGroupKey(flag string) string {
	for _, g := range serveFlagGroups {
		if slices.Contains(g.flags, flag) {
			return groupKey(g)
		}
	}
	return ""
}

// readConfigFile reads and parses path. An error here is one the file's
// content cannot explain (it cannot be read); what is wrong inside it is
// reported by err, after the flags have read it.
func readConfigFile(path string) (*configFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseConfigFile(path, raw), nil
}

// parseConfigFile parses raw, the content of the file named path.
func parseConfigFile(path string, raw []byte) *configFile {
	f := &configFile{path: path, entries: map[string]*configEntry{}}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF):
		return f // empty: no settings
	case err != nil:
		line, msg := syntaxError(err)
		f.fail(line, "%s", msg)
		return f
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		f.fail(more.Line, "want one YAML document")
		return f
	}
	top := resolve(doc.Content[0])
	if isNull(top) {
		return f // only comments
	}
	if top.Kind != yaml.MappingNode {
		f.fail(top.Line, "want a mapping of the groups of `lsnode serve -h`: %s", groupList())
		return f
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], resolve(top.Content[i+1])
		if first, dup := seen[k.Value]; dup {
			f.fail(k.Line, "%s is given twice (first at line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		if !isGroup(k.Value) {
			f.fail(k.Line, "unknown key %s: want a group of `lsnode serve -h`: %s", k.Value, groupList())
			continue
		}
		if v.Kind != yaml.MappingNode {
			f.fail(v.Line, "%s: want a mapping of its settings (flag names)", k.Value)
			continue
		}
		f.addGroup(k.Value, v)
	}
	return f
}

func (f *configFile) addGroup(group string, m *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		e := &configEntry{group: group, flag: k.Value, line: k.Line, value: v}
		if first, dup := f.entries[e.key()]; dup {
			f.fail(k.Line, "%s is given twice (first at line %d)", e.key(), first.line)
			continue
		}
		f.entries[e.key()] = e
	}
}

// syntaxError splits the parser's error into its line and its message
// ("yaml: line 3: mapping values are not allowed in this context").
func syntaxError(err error) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		return line, m[2]
	}
	return 0, msg
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

func (f *configFile) fail(line int, format string, a ...any) {
	f.errs = append(f.errs, configError{line: line, msg: fmt.Sprintf(format, a...)})
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func isGroup(key string) bool {
	return slices.ContainsFunc(serveFlagGroups, func(g flagGroup) bool { return groupKey(g) == key })
}

// groupList names the groups, for errors.
func groupList() string {
	var keys []string
	for _, g := range serveFlagGroups {
		keys = append(keys, groupKey(g))
	}
	return orList(keys)
}

// lookup returns the setting of flag, marked read; nil when the file does
// not set it (or there is no file).
func (f *configFile) lookup(flag string) *configEntry {
	if f == nil {
		return nil
	}
	e := f.entries[flagGroupKey(flag)+"."+flag]
	if e != nil {
		e.read = true
	}
	return e
}

// scalar returns e's value when it is a scalar that is not null, else
// records that want was wanted.
func (e *configEntry) scalar(want string) (string, bool) {
	if e.value.Kind != yaml.ScalarNode || isNull(e.value) {
		e.err = "want " + want
		return "", false
	}
	return e.value.Value, true
}

// wrongType records that want was wanted instead of the scalar v.
func (e *configEntry) wrongType(want, v string) {
	e.err = fmt.Sprintf("want %s, got %q", want, v)
}

// stringOr is flag's string value, else def. Any scalar is its text.
func (f *configFile) stringOr(flag, def string) string {
	e := f.lookup(flag)
	if e == nil {
		return def
	}
	if v, ok := e.scalar("a string"); ok {
		return v
	}
	return def
}

// listOr is flag's list, else def: a sequence of strings, or one string
// of comma-separated values (as the flag takes it).
func (f *configFile) listOr(flag string, def []string) []string {
	e := f.lookup(flag)
	if e == nil {
		return def
	}
	const want = "a list of strings or a comma-separated string"
	if e.value.Kind == yaml.ScalarNode && !isNull(e.value) {
		return splitList(e.value.Value)
	}
	if e.value.Kind != yaml.SequenceNode {
		e.err = "want " + want
		return def
	}
	var out []string
	for _, item := range e.value.Content {
		item = resolve(item)
		if item.Kind != yaml.ScalarNode || isNull(item) {
			e.err = "want " + want
			return def
		}
		out = append(out, item.Value)
	}
	return out
}

// commaListOr is flag's list as the comma-separated string its flag
// takes, else def.
func (f *configFile) commaListOr(flag, def string) string {
	if l := f.listOr(flag, nil); l != nil {
		return strings.Join(l, ",")
	}
	return def
}

// boolOr is flag's boolean, else def: true or false, unquoted.
func (f *configFile) boolOr(flag string, def bool) bool {
	e := f.lookup(flag)
	if e == nil {
		return def
	}
	v, ok := e.scalar("true or false")
	if !ok {
		return def
	}
	var b bool
	if e.value.Tag != "!!bool" || e.value.Decode(&b) != nil {
		e.wrongType("true or false", v)
		return def
	}
	return b
}

// int64Or is flag's integer, else def.
func (f *configFile) int64Or(flag string, def int64) int64 {
	e := f.lookup(flag)
	if e == nil {
		return def
	}
	v, ok := e.scalar("an integer")
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if e.value.Tag != "!!int" || err != nil {
		e.wrongType("an integer", v)
		return def
	}
	return n
}

// durationOr is flag's duration, else def: a string with a unit, as the
// flag takes it ("30s", "5m").
func (f *configFile) durationOr(flag string, def time.Duration) time.Duration {
	e := f.lookup(flag)
	if e == nil {
		return def
	}
	v, ok := e.scalar(wantDuration(""))
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.wrongType(wantDuration(v), v)
		return def
	}
	return d
}

// count is the number of settings read by a flag, by group key.
func (f *configFile) count() map[string]int {
	n := map[string]int{}
	for _, e := range f.entries {
		if e.read && e.err == "" {
			n[e.group]++
		}
	}
	return n
}

// err reports what is wrong with the file: its own problems, the values
// that are not of their flag's type and the keys no flag read, by line,
// each as "FILE:LINE: ...". Call it once the flags are defined.
func (f *configFile) err() error {
	if f == nil {
		return nil
	}
	all := slices.Clone(f.errs)
	for _, e := range f.entries {
		switch {
		case !e.read:
			all = append(all, configError{e.line, unknownKey(e)})
		case e.err != "":
			all = append(all, configError{e.value.Line, e.key() + ": " + e.err})
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b configError) int { return a.line - b.line })
	errs := make([]error, len(all))
	for i, ce := range all {
		if ce.line == 0 {
			errs[i] = fmt.Errorf("%s: %s", f.path, ce.msg)
		} else {
			errs[i] = fmt.Errorf("%s:%d: %s", f.path, ce.line, ce.msg)
		}
	}
	return errors.Join(errs...)
}

// unknownKey says why no flag read e: its flag is under another group,
// it is --config itself, or there is no such flag (with the closest one
// of its group, when one is close).
func unknownKey(e *configEntry) string {
	msg := "unknown key " + e.key()
	switch g := flagGroupKey(e.flag); {
	case e.flag == "config":
		return msg + ": --config names the file; it is not a setting of it"
	case g != "":
		return fmt.Sprintf("%s: %s is a setting of %s", msg, e.flag, g)
	}
	for _, g := range serveFlagGroups {
		if groupKey(g) == e.group {
			if guess := closest(e.flag, g.flags); guess != "" {
				return msg + "; did you mean " + e.group + "." + guess + "?"
			}
		}
	}
	return msg
}
