package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
)

// Exit codes. exitCode is the only place that chooses one.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // the command line was wrong
)

// command is one subcommand: its name, a one-line help text and the function
// that runs it. run gets the arguments after the subcommand's name and
// returns nil on success, a usage error (see usageErrorf and parseFlags) for a
// bad command line, or any other error for a failure. It reports its own
// results on stdout; run prints the returned error, prefixed with
// "lsnode <name>: ", on stderr.
type command struct {
	name string
	help string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the single table of subcommands, in the order `lsnode help`
// lists them. A subcommand written in its own file replaces its placeholder
// here by naming its function. It is a function rather than a package
// variable because help lists the table, which would be an initialisation
// cycle.
func commands() []command {
	return []command{
		{"serve", "run a node in the foreground until interrupted", runServe},
		{"peers", "list a node's peers with their replication lag", runPeers},
		{"agents", "list the agents a node has seen", runAgents},
		{"status", "show a node's health and version vector", runStatus},
		{"events", "append, list, follow (tail) or acknowledge events", runEvents},
		{"owed", "list the events an agent still owes a reply to", runOwed},
		{"artifact", "store or fetch an artifact (put, get)", runArtifact},
		{"keys", "rotate the mesh's gossip encryption keys (list, install, use, remove)", runKeys},
		{"version", "print the version of this binary", runVersion},
		{"help", "list the commands, or describe one", runHelp},
	}
}

// run dispatches args to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	}
	cmd, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "lsnode: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return exitUsage
	}
	return exitCode(cmd.name, cmd.run(ctx, args[1:], stdout, stderr), stderr)
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// exitCode reports err on stderr, unless it was reported already, and maps it
// to the process exit code.
func exitCode(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var ue *usageError
	if !errors.As(err, &ue) {
		fmt.Fprintf(stderr, "lsnode %s: %v\n", name, err)
		return exitFailure
	}
	if !ue.reported {
		fmt.Fprintf(stderr, "lsnode %s: %v\nRun 'lsnode %s -h' for usage.\n", name, err, name)
	}
	return exitUsage
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct {
	err      error
	reported bool // already printed, with the flags, by the flag package
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf returns a usage error with a formatted message.
func usageErrorf(format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...)}
}

// newFlagSet returns a flag set for subcommand name that prints its errors
// and usage on stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("lsnode "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args into fs and refuses positional arguments unless
// allowArgs. Flags may come after positional arguments too (`artifact get
// ID --out FILE`), up to a "--". -h returns flag.ErrHelp (exit 0); a bad
// flag returns a usage error that the flag package has already printed.
func parseFlags(fs *flag.FlagSet, args []string, allowArgs bool) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return &usageError{err: err, reported: true}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
	if !allowArgs && len(positional) > 0 {
		return usageErrorf("unexpected argument %q", positional[0])
	}
	// Leave the positional arguments as fs.Args(); the flags keep their values.
	return fs.Parse(append([]string{"--"}, positional...))
}

func runHelp(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("help", stderr)
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		printUsage(stdout)
		return nil
	case 1:
		c, ok := lookup(fs.Arg(0))
		if !ok {
			return usageErrorf("unknown command %q", fs.Arg(0))
		}
		fmt.Fprintf(stdout, "lsnode %s: %s\nRun 'lsnode %s -h' for its flags.\n", c.name, c.help, c.name)
		return nil
	default:
		return usageErrorf("give at most one command name")
	}
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, "usage: lsnode <command> [flags] [arguments]\n\ncommands:\n")
	var t table
	for _, c := range commands() {
		t.row("  "+c.name, c.help)
	}
	t.write(w) //nolint:errcheck // usage goes to a terminal; nothing to do on failure
	fmt.Fprint(w, "\nRun 'lsnode <command> -h' for a command's flags.\n")
}
