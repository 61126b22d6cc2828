package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// clearEnv keeps every lsnode and hub variable of the developer's shell
// out of a test: flag defaults come from them.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "LSNODE_") || strings.HasPrefix(name, "MEMPALACE_") || name == "GOMEMLIMIT" {
			t.Setenv(name, "")
		}
	}
}

// commandPaths lists every command and subcommand: "serve", "events append".
func commandPaths() []string {
	var paths []string
	for _, c := range commands() {
		paths = append(paths, c.name)
		if c.subs != nil {
			for _, s := range c.subs() {
				paths = append(paths, c.name+" "+s.name)
			}
		}
	}
	return paths
}

// TestHelp_Golden: `-h` of every command and subcommand prints its help on
// stdout and exits 0: the usage line, what it does and its flags (serve's
// grouped by topic). testdata/help.golden holds them all.
func TestHelp_Golden(t *testing.T) {
	clearEnv(t)
	var all strings.Builder
	for _, path := range commandPaths() {
		args := append(strings.Fields(path), "-h")
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "usage: lsnode "+path) {
			t.Errorf("lsnode %s -h: exit %d, stderr %q, stdout %q; want exit 0 and the help on stdout", path, code, stderr, stdout)
		}
		fmt.Fprintf(&all, "$ lsnode %s -h\n%s\n", path, stdout)
	}
	checkGolden(t, "help.golden", []byte(all.String()))
}

// TestHelp_SubcommandsListFlags: a subcommand's help lists the flags it
// defines, not only the parent's summary.
func TestHelp_SubcommandsListFlags(t *testing.T) {
	clearEnv(t)
	want := map[string][]string{
		"events append": {"--type", "--stream", "--room", "--from", "--body", "--artifact", "--addr"},
		"events list":   {"--before", "--cursor", "--order", "--limit", "--since"},
		"events tail":   {"--cursor", "--stream"},
		"events ack":    {"--event", "--from", "--status"},
		"artifact put":  {"--kind", "--created-by", "--file"},
		"artifact get":  {"--out", "--info"},
		"keys install":  {"--addr", "--json"},
	}
	for path, flags := range want {
		_, stdout, _ := runCLI(t, append(strings.Fields(path), "-h")...)
		for _, f := range flags {
			if !strings.Contains(stdout, "\n  "+f+" ") && !strings.Contains(stdout, "\n  "+f+"\n") {
				t.Errorf("lsnode %s -h does not list %s:\n%s", path, f, stdout)
			}
		}
	}
}

// TestServeHelp_EveryFlagInOneGroup: each flag of serve is in exactly one
// group of its help, and every group names flags that exist; a new flag
// left out of serveFlagGroups fails here.
func TestServeHelp_EveryFlagInOneGroup(t *testing.T) {
	clearEnv(t)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addServeFlags(fs, osEnv, nil)
	seen := map[string]string{}
	for _, g := range serveFlagGroups {
		if len(g.flags) == 0 {
			t.Errorf("group %q is empty", g.title)
		}
		for _, name := range g.flags {
			if fs.Lookup(name) == nil {
				t.Errorf("group %q names --%s, which serve does not define", g.title, name)
			}
			if prev, dup := seen[name]; dup {
				t.Errorf("--%s is in groups %q and %q", name, prev, g.title)
			}
			seen[name] = g.title
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := seen[f.Name]; !ok {
			t.Errorf("--%s is in no group of serveFlagGroups", f.Name)
		}
	})
	_, stdout, _ := runCLI(t, "serve", "-h")
	for _, title := range []string{"HTTP", "MCP", "replication", "membership", "security", "limits", "storage"} {
		if !strings.Contains(stdout, "\n"+title+":\n") {
			t.Errorf("serve -h has no %s group", title)
		}
	}
}

// TestErrors_Golden: a mistyped command or subcommand gets the closest
// name; a bad flag one line and the hint, not the whole usage, before the
// command too; a duration without a unit (flag or variable) says it wants
// one, and an integer or a switch that does not parse what it wants and
// what it got. All exit 2 with
// nothing on stdout. testdata/errors.golden holds what they print.
func TestErrors_Golden(t *testing.T) {
	cases := []struct {
		args []string
		env  string // NAME=value set for this case
	}{
		{args: []string{"serv"}},
		{args: []string{"stauts"}},
		{args: []string{"frobnicate"}},
		{args: []string{"help", "serv"}},
		{args: []string{"events", "apend"}},
		{args: []string{"artifact", "gett"}},
		{args: []string{"keys", "lst"}},
		{args: []string{"serve", "-x"}},
		{args: []string{"events", "append", "--colour", "red"}},
		{args: []string{"serve", "--max-long-poll", "300"}},
		{args: []string{"serve", "--rejoin-interval=soon"}},
		{args: []string{"agents", "--window", "10"}},
		{args: []string{"--bogus"}},
		{args: []string{"serve", "--max-request-bytes", "16MiB"}},
		{args: []string{"events", "list", "--limit", "abc"}},
		{args: []string{"serve", "--sync-full=yes"}},
		{args: []string{"serve", "--http"}},
		{args: []string{"serve"}, env: "LSNODE_MAX_LONG_POLL=300"},
	}
	var all strings.Builder
	for _, tc := range cases {
		clearEnv(t)
		shown := "lsnode " + strings.Join(tc.args, " ")
		if name, value, ok := strings.Cut(tc.env, "="); ok {
			t.Setenv(name, value)
			shown = tc.env + " " + shown
		}
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want exit %d and nothing on stdout", shown, code, stdout, exitUsage)
		}
		fmt.Fprintf(&all, "$ %s\n%s\n", shown, stderr)
	}
	checkGolden(t, "errors.golden", []byte(all.String()))
}

// TestFlagErrors_OneLine: whatever the command, a flag it does not define
// prints two lines, the error naming the flag as help does (two dashes)
// and the hint naming the command; so does one before any command.
func TestFlagErrors_OneLine(t *testing.T) {
	clearEnv(t)
	for _, path := range commandPaths() {
		if c, _ := findPath(path); c.subs != nil {
			continue // its subcommands have the flags
		}
		args := append(strings.Fields(path), "--no-such-flag")
		code, stdout, stderr := runCLI(t, args...)
		want := fmt.Sprintf("lsnode %s: flag provided but not defined: --no-such-flag\nRun 'lsnode %s -h' for usage.\n", path, path)
		if code != exitUsage || stdout != "" || stderr != want {
			t.Errorf("lsnode %s --no-such-flag: exit %d, stdout %q, stderr %q; want exit 2 and %q", path, code, stdout, stderr, want)
		}
	}
	for _, arg := range []string{"--no-such-flag", "-no-such-flag", "--no-such-flag=1"} {
		code, stdout, stderr := runCLI(t, arg, "peers")
		want := "lsnode: flag provided but not defined: --no-such-flag (flags come after the command)\nRun 'lsnode -h' for usage.\n"
		if code != exitUsage || stdout != "" || stderr != want {
			t.Errorf("lsnode %s peers: exit %d, stdout %q, stderr %q; want exit 2 and %q", arg, code, stdout, stderr, want)
		}
	}
}

// TestIntegerFlags_WantAnInteger: every integer flag of every command, as
// its help lists them, refuses a value that is not one as the
// configuration file does, naming the flag and the value.
func TestIntegerFlags_WantAnInteger(t *testing.T) {
	clearEnv(t)
	n := 0
	for _, path := range commandPaths() {
		_, help, _ := runCLI(t, append(strings.Fields(path), "-h")...)
		for _, line := range strings.Split(help, "\n") {
			name, ok := strings.CutSuffix(strings.TrimPrefix(line, "  --"), " int")
			if !ok || !strings.HasPrefix(line, "  --") {
				continue
			}
			n++
			code, stdout, stderr := runCLI(t, append(strings.Fields(path), "--"+name, "16MiB")...)
			want := fmt.Sprintf("lsnode %s: --%s: want an integer, got \"16MiB\"\nRun 'lsnode %s -h' for usage.\n", path, name, path)
			if code != exitUsage || stdout != "" || stderr != want {
				t.Errorf("lsnode %s --%s 16MiB: exit %d, stdout %q, stderr %q; want exit 2 and %q", path, name, code, stdout, stderr, want)
			}
		}
	}
	if n < 15 {
		t.Fatalf("%d integer flags found in the help of every command, want every one of them (at least 15)", n)
	}
}

// TestDurationFlags_WantAUnit: every duration flag of serve refuses a
// number without a unit, saying what it wants.
func TestDurationFlags_WantAUnit(t *testing.T) {
	clearEnv(t)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addServeFlags(fs, osEnv, nil)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(*durationValue); !ok {
			return
		}
		n++
		serve := newFlagSet("serve", io.Discard, io.Discard)
		addServeFlags(serve.FlagSet, osEnv, nil)
		err := serve.Set(f.Name, "300")
		if err == nil || err.Error() != "want a duration with a unit, such as 300s or 300ms" {
			t.Errorf("--%s 300: %v", f.Name, err)
		}
	})
	if n < 10 {
		t.Fatalf("%d duration flags found on serve, want every one of them (at least 10)", n)
	}
	// No flag of serve is the flag package's own duration, whose error
	// is a bare "parse error".
	fs.VisitAll(func(f *flag.Flag) {
		if kind, _ := flag.UnquoteUsage(f); kind == "duration" {
			t.Errorf("--%s is a flag.Duration; define it with durationFlag", f.Name)
		}
	})
}

func TestClosest(t *testing.T) {
	names := commandNames(commands())
	cases := map[string]string{
		"serv": "serve", "serve": "serve", "stauts": "status", "evnts": "events", "ver": "version",
		"peer": "peers", "frobnicate": "", "x": "", "": "", "keyz": "keys",
	}
	for in, want := range cases {
		if got := closest(in, names); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}
