package main

import (
	"strconv"
	"strings"
)

// flagError is the flag package's error text as lsnode shows it: flags
// written with two dashes, as help writes them, and a value that did not
// parse named as the configuration file names it ("--max-request-bytes:
// want an integer, got "16MiB""; every Set of lsnode's flag values says
// what it wants). Texts of other shapes are kept.
func flagError(err error) string {
	msg := err.Error()
	for _, prefix := range []string{"flag provided but not defined: -", "flag needs an argument: -"} {
		if name, ok := strings.CutPrefix(msg, prefix); ok {
			return prefix + "-" + name
		}
	}
	// invalid value "V" for flag -NAME: WHY; invalid boolean value "V" for -NAME: WHY
	for _, form := range []struct{ prefix, middle string }{{"invalid value ", " for flag -"}, {"invalid boolean value ", " for -"}} {
		rest, ok := strings.CutPrefix(msg, form.prefix)
		if !ok {
			continue
		}
		quoted, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return msg
		}
		named, ok := strings.CutPrefix(rest[len(quoted):], form.middle)
		name, why, ok2 := strings.Cut(named, ": ")
		if !ok || !ok2 {
			return msg
		}
		if form.prefix == "invalid boolean value " {
			why = "want true or false"
		}
		return "--" + name + ": " + why + ", got " + quoted
	}
	return msg
}
