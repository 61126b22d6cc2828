package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"
)

// serveEnv is where the flags of `lsnode serve` take their defaults from,
// each from the first of: its variables (LSNODE_*, then the Python hub's
// where it has one), the configuration file (--config), node.DefaultConfig.
// A flag given on the command line beats all three, so the precedence is
// flag > environment > file > default.
//
// It remembers each LSNODE_* number or duration that does not parse:
// serve refuses to start with it, as it refuses the same value given as a
// flag, instead of running on a default the operator did not ask for.
// (The Python hub's own variables keep its lenient reading.) A flag given
// on the command line beats its variable, bad or not. What is wrong in
// the file is always refused (configFile.err).
type serveEnv struct {
	fs   *flag.FlagSet
	env  environ
	file *configFile // nil without --config
	bad  []badEnv
}

// badEnv is a variable that did not parse, and the flag it stands for
// (LSNODE_MAX_LONG_POLL for --max-long-poll).
type badEnv struct {
	flag string
	err  error
}

// String defines a string flag: its variables, else the file, else def.
func (e *serveEnv) String(name, def, usage string, vars ...string) *string {
	return e.fs.String(name, e.env.or(e.file.stringOr(name, def), vars...), usage)
}

// List defines a flag of comma-separated values; the file may give them
// as a list.
func (e *serveEnv) List(name, usage string, vars ...string) *string {
	return e.fs.String(name, e.env.or(e.file.commaListOr(name, ""), vars...), usage)
}

// Switch defines a boolean flag, false by default; its variables are read
// as the Python hub reads its switches (environ.truthyOr).
func (e *serveEnv) Switch(name, usage string, vars ...string) *bool {
	return e.fs.Bool(name, e.env.truthyOr(e.file.boolOr(name, false), vars...), usage)
}

// Duration defines a duration flag (durationFlag).
func (e *serveEnv) Duration(name string, def time.Duration, usage string, vars ...string) *time.Duration {
	return durationFlag(e.fs, name, e.duration(name, e.file.durationOr(name, def), vars...), usage)
}

// Int64 defines an integer flag (intFlag).
func (e *serveEnv) Int64(name string, def int64, usage string, vars ...string) *int64 {
	return intFlag(e.fs, name, e.int64(name, e.file.int64Or(name, def), vars...), usage)
}

// Int defines an integer flag (intFlag).
func (e *serveEnv) Int(name string, def int, usage string, vars ...string) *int {
	return intFlag(e.fs, name, int(e.int64(name, e.file.int64Or(name, int64(def)), vars...)), usage)
}

func (e *serveEnv) refuse(flag, name, v, want string) {
	e.bad = append(e.bad, badEnv{flag: flag, err: fmt.Errorf("%s=%q is not %s", name, v, want)})
}

// duration is the first set variable of vars as a duration, else def.
func (e *serveEnv) duration(flag string, def time.Duration, vars ...string) time.Duration {
	name, v := e.env.first(vars...)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.refuse(flag, name, v, wantDuration(v))
		return def
	}
	return d
}

// int64 is the first set variable of vars as an integer, else def.
func (e *serveEnv) int64(flag string, def int64, vars ...string) int64 {
	name, v := e.env.first(vars...)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		e.refuse(flag, name, v, "an integer")
		return def
	}
	return n
}

// err reports the file's problems, then names every variable that did not
// parse and whose flag was not given; nil when there is none of either.
func (e *serveEnv) err() error {
	if err := e.file.err(); err != nil {
		return usageErrorf("%w", err)
	}
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
