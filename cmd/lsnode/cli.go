package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes. exitCode is the only place that chooses one.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // the command line was wrong
)

// command is one subcommand: its name, its positional arguments as usage
// shows them, a one-line help text and the function that runs it, or the
// table of its own subcommands (events append, keys list...). run gets
// the arguments after the subcommand's name and returns nil on success, a
// usage error (see usageErrorf and parseFlags) for a bad command line, or
// any other error for a failure. It reports its own results on stdout;
// run prints the returned error, prefixed with "lsnode <name>: ", on
// stderr.
type command struct {
	name string
	args string // positional arguments after [flags], e.g. "ID"; "" for none
	help string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	subs func() []command // the subcommands of a command that has them
}

// commands is the single table of subcommands, in the order `lsnode help`
// lists them. It is a function rather than a package variable because
// help lists the table, which would be an initialisation cycle.
func commands() []command {
	return []command{
		{name: "serve", help: "run a node in the foreground until interrupted", run: runServe},
		{name: "config", help: "check a configuration file of serve (check)", run: runConfig, subs: configCommands},
		{name: "peers", help: "list a node's peers with their replication lag", run: runPeers},
		{name: "agents", help: "list the agents a node has seen, or the wait-for cycles among them (--cycles)", run: runAgents},
		{name: "status", help: "show a node's health and version vector", run: runStatus},
		{name: "events", help: "append, list, search, follow (tail) or acknowledge events", run: runEvents, subs: eventsCommands},
		{name: "owed", help: "list the events an agent still owes a reply to", run: runOwed},
		{name: "awaiting", help: "list the asks an agent wrote that are still owed a reply", run: runAwaiting},
		{name: "artifact", help: "store or fetch an artifact (put, get)", run: runArtifact, subs: artifactCommands},
		{name: "backup", help: "write a consistent backup of a running node (--addr) or a stopped one (--data) to a file", run: runBackup},
		{name: "restore", args: "[FILE]", help: "restore a backup FILE, or seed a new node from a running one (--from), into an empty data dir", run: runRestore},
		{name: "keys", help: "rotate the mesh's gossip encryption keys (list, install, use, remove)", run: runKeys, subs: keysCommands},
		{name: "version", help: "print the version of this binary", run: runVersion},
		{name: "help", args: "[command]", help: "list the commands, or describe one", run: runHelp},
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
	case "-v", "-version", "--version":
		name = "version"
	}
	cmd, ok := lookup(name)
	if !ok {
		if strings.HasPrefix(name, "-") {
			flagName, _, _ := strings.Cut(strings.TrimLeft(name, "-"), "=")
			fmt.Fprintf(stderr, "lsnode: flag provided but not defined: --%s (flags come after the command)\n%s\n", flagName, usageHint(""))
			return exitUsage
		}
		if guess := closest(args[0], commandNames(commands())); guess != "" {
			fmt.Fprintf(stderr, "lsnode: unknown command %q; did you mean %s?\n%s\n", args[0], guess, usageHint(""))
			return exitUsage
		}
		fmt.Fprintf(stderr, "lsnode: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return exitUsage
	}
	return exitCode(cmd.name, cmd.run(ctx, args[1:], stdout, stderr), stderr)
}

func lookup(name string) (command, bool) {
	return find(commands(), name)
}

func find(cmds []command, name string) (command, bool) {
	for _, c := range cmds {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames(cmds []command) []string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	return names
}

// runSubcommand runs the subcommand of parent named by args[0]; -h lists
// the subcommands on stdout.
func runSubcommand(ctx context.Context, parent string, subs []command, args []string, stdout, stderr io.Writer) error {
	names := orList(commandNames(subs))
	if len(args) == 0 {
		return usageErrorf("give a subcommand: %s", names)
	}
	if isHelp(args[0]) {
		return printSubcommands(stdout, parent, subs)
	}
	sub, ok := find(subs, args[0])
	if !ok {
		return usageErrorf("unknown subcommand %q: want %s%s", args[0], names, didYouMean(args[0], subs))
	}
	return sub.run(ctx, args[1:], stdout, stderr)
}

// didYouMean is "; did you mean NAME?" for the command of cmds closest to
// name, "" when none is close.
func didYouMean(name string, cmds []command) string {
	if guess := closest(name, commandNames(cmds)); guess != "" {
		return "; did you mean " + guess + "?"
	}
	return ""
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
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
		fmt.Fprintf(stderr, "lsnode %s: %v\n%s\n", name, err, usageHint(name))
	}
	return exitUsage
}

// usageHint is the line after every command-line mistake, naming the
// command's help ("" for lsnode itself).
func usageHint(path string) string {
	if path == "" {
		return "Run 'lsnode -h' for usage."
	}
	return "Run 'lsnode " + path + " -h' for usage."
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

// flagSet is a command's flags: its -h prints the command's help on
// stdout, and a bad flag one line and a hint on stderr.
type flagSet struct {
	*flag.FlagSet
	path           string // the command's name after "lsnode", e.g. "events append"
	stdout, stderr io.Writer
}

// newFlagSet returns the flag set of the command named path ("serve",
// "events append"): its help goes to stdout, its errors to stderr.
func newFlagSet(path string, stdout, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet("lsnode "+path, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseFlags prints errors and help itself
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, path: path, stdout: stdout, stderr: stderr}
}

// parseFlags parses args into fs and refuses positional arguments unless
// allowArgs. Flags may come after positional arguments too (`artifact get
// ID --out FILE`), up to a "--". -h prints the command's help on stdout
// and returns flag.ErrHelp (exit 0); a bad flag prints the error and a
// hint on stderr and returns a usage error marked reported.
func parseFlags(fs *flagSet, args []string, allowArgs bool) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				if herr := printHelp(fs.stdout, fs.path, fs.FlagSet); herr != nil {
					return herr
				}
				return err
			}
			fmt.Fprintf(fs.stderr, "lsnode %s: %s\n%s\n", fs.path, flagError(err), usageHint(fs.path))
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
	fs := newFlagSet("help", stdout, stderr)
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
			return usageErrorf("unknown command %q%s", fs.Arg(0), didYouMean(fs.Arg(0), commands()))
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
