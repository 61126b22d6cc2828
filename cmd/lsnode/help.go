package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// flagGroup is a titled list of flags in a command's help.
type flagGroup struct {
	title string
	flags []string
}

// connectionFlags are the flags every client command shares
// (addClientFlags), listed apart from the command's own.
var connectionFlags = []string{"addr", "token-file", "tls-ca"}

// helpWidth is where help text wraps.
const helpWidth = 80

// printHelp writes the help of the command named path ("events append"):
// its usage line, what it does and its flags, grouped by topic for serve
// (serveFlagGroups), else its own flags, then the node connection flags.
func printHelp(w io.Writer, path string, fs *flag.FlagSet) error {
	var b strings.Builder
	c, _ := findPath(path)
	usage := "lsnode " + path
	if hasFlags(fs) {
		usage += " [flags]"
	}
	if c.args != "" {
		usage += " " + c.args
	}
	fmt.Fprintf(&b, "usage: %s\n", usage)
	if c.help != "" {
		fmt.Fprintf(&b, "\n%s\n", wrap(c.help, "", helpWidth))
	}
	for _, g := range helpGroups(path, fs) {
		if len(g.flags) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", g.title)
		for _, name := range g.flags {
			writeFlag(&b, fs.Lookup(name))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// helpGroups are the groups of path's help.
func helpGroups(path string, fs *flag.FlagSet) []flagGroup {
	if path == "serve" {
		return serveFlagGroups
	}
	own := flagGroup{title: "flags"}
	conn := flagGroup{title: "node connection flags"}
	fs.VisitAll(func(f *flag.Flag) {
		if slices.Contains(connectionFlags, f.Name) {
			conn.flags = append(conn.flags, f.Name)
		} else {
			own.flags = append(own.flags, f.Name)
		}
	})
	return []flagGroup{own, conn}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// typeNamer is a flag value that names its type in help ("duration").
type typeNamer interface{ typeName() string }

// writeFlag writes one flag: "  --name type", then its usage, wrapped and
// indented, with its default when it has one.
func writeFlag(b *strings.Builder, f *flag.Flag) {
	kind, usage := flag.UnquoteUsage(f)
	if tn, ok := f.Value.(typeNamer); ok {
		kind = tn.typeName()
	}
	fmt.Fprintf(b, "  --%s", f.Name)
	if kind != "" {
		fmt.Fprintf(b, " %s", kind)
	}
	if def := f.DefValue; def != "" && def != "0" && def != "0s" && def != "false" {
		if kind == "string" {
			def = fmt.Sprintf("%q", def)
		}
		usage += " (default " + def + ")"
	}
	fmt.Fprintf(b, "\n%s\n", wrap(usage, "      ", helpWidth))
}

// wrap breaks text into lines of at most width columns (a longer word
// stays whole), each starting with indent.
func wrap(text, indent string, width int) string {
	var lines []string
	line := indent
	for _, word := range strings.Fields(text) {
		if line != indent && len(line)+1+len(word) > width {
			lines, line = append(lines, line), indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

// printSubcommands writes the help of a command made of subcommands.
func printSubcommands(w io.Writer, parent string, subs []command) error {
	c, _ := lookup(parent)
	var b strings.Builder
	fmt.Fprintf(&b, "usage: lsnode %s <subcommand> [flags]\n\n%s\n\nsubcommands:\n", parent, wrap(c.help, "", helpWidth))
	var t table
	for _, s := range subs {
		t.row("  "+s.name, s.help)
	}
	t.write(&b) //nolint:errcheck // a strings.Builder does not fail
	fmt.Fprintf(&b, "\nRun 'lsnode %s <subcommand> -h' for its flags.\n", parent)
	_, err := io.WriteString(w, b.String())
	return err
}

// findPath finds the command named path: "serve", "events append".
func findPath(path string) (command, bool) {
	cmds := commands()
	var c command
	for i, name := range strings.Fields(path) {
		if i > 0 {
			if c.subs == nil {
				return command{}, false
			}
			cmds = c.subs()
		}
		var ok bool
		if c, ok = find(cmds, name); !ok {
			return command{}, false
		}
	}
	return c, true
}

// closest is the candidate nearest to name, if it is near enough to be
// what was meant: name is a prefix of it, or it is at most a third of
// name's length (and at most 2) edits away. "" when none is.
func closest(name string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(name, c)
		if strings.HasPrefix(c, name) && len(name) >= 2 {
			d = 0
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > min(2, max(1, len(name)/3)) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
