package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// serveEnv reads the LSNODE_* numbers and durations that serve takes as
// flag defaults, and remembers each one that does not parse: serve
// refuses to start with it, as it refuses the same value given as a flag,
// instead of running on a default the operator did not ask for. (The
// Python hub's own variables keep its lenient reading.) A flag given on
// the command line beats its variable, bad or not.
type serveEnv struct {
	fs  *flag.FlagSet
	bad []badEnv
}

// badEnv is a variable that did not parse, and the flag it stands for
// (LSNODE_MAX_LONG_POLL for --max-long-poll).
type badEnv struct {
	flag string
	err  error
}

func (e *serveEnv) refuse(name, v, want string) {
	flagName := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, "LSNODE_"), "_", "-"))
	e.bad = append(e.bad, badEnv{flag: flagName, err: fmt.Errorf("%s=%q is not %s", name, v, want)})
}

func (e *serveEnv) duration(def time.Duration, name string) time.Duration {
	v := envOr("", name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.refuse(name, v, wantDuration(v))
		return def
	}
	return d
}

func (e *serveEnv) int64(def int64, name string) int64 {
	v := envOr("", name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		e.refuse(name, v, "an integer")
		return def
	}
	return n
}

func (e *serveEnv) int(def int, name string) int {
	return int(e.int64(int64(def), name))
}

// err names every variable that did not parse and whose flag was not
// given; nil when there is none.
func (e *serveEnv) err() error {
	given := map[string]bool{}
	e.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	for _, b := range e.bad {
		if !given[b.flag] {
			errs = append(errs, b.err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return usageErrorf("%w", errors.Join(errs...))
}
