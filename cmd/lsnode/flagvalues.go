package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// durationValue is a duration flag whose error says what it wants: the
// flag package's own answers a value without a unit ("300") with a bare
// "parse error".
type durationValue time.Duration

// durationFlag defines a duration flag on fs, as fs.Duration does.
func durationFlag(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	d := def
	fs.Var((*durationValue)(&d), name, usage)
	return &d
}

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want %s", wantDuration(s))
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string   { return time.Duration(*d).String() }
func (d *durationValue) typeName() string { return "duration" }

// wantDuration says what a duration setting wants, for the value v that
// did not parse: a number alone gets its own value with units as the
// example ("300": 300s or 300ms).
func wantDuration(v string) string {
	if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
		v = strings.TrimSpace(v)
		return fmt.Sprintf("a duration with a unit, such as %ss or %sms", v, v)
	}
	return "a duration with a unit, such as 30s or 5m"
}

// intValue is an integer flag whose error says what it wants, as the
// configuration file's does: the flag package's own answers "16MiB" with
// a bare "parse error". It reads base 10, as the file and the variables
// do.
type intValue[T int | int64] struct{ n T }

// intFlag defines an integer flag on fs, as fs.Int and fs.Int64 do.
func intFlag[T int | int64](fs *flag.FlagSet, name string, def T, usage string) *T {
	v := &intValue[T]{n: def}
	fs.Var(v, name, usage)
	return &v.n
}

func (v *intValue[T]) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) || (err == nil && int64(T(n)) != n) {
		return errors.New("want an integer that fits in 64 bits")
	}
	if err != nil {
		return errors.New("want an integer")
	}
	v.n = T(n)
	return nil
}

func (v *intValue[T]) String() string   { return strconv.FormatInt(int64(v.n), 10) }
func (v *intValue[T]) typeName() string { return "int" }

// stringList is a repeatable string flag. Its first value given on the
// command line replaces the values it started with when replace is set,
// and adds to them otherwise.
type stringList struct {
	values  []string
	replace bool
}

func (l *stringList) String() string   { return strings.Join(l.values, ",") }
func (l *stringList) typeName() string { return "string" }

func (l *stringList) Set(v string) error {
	if l.replace {
		l.values, l.replace = nil, false
	}
	l.values = append(l.values, v)
	return nil
}
