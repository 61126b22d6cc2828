package importrules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Package is what the rules read of one package of the build graph: the
// fields of `go list -json` they use.
type Package struct {
	ImportPath string
	Standard   bool     // part of the standard library
	Dir        string   // its source directory
	GoFiles    []string // its non-test Go files, in Dir
	Imports    []string // the imports of GoFiles
}

// Graph is a build graph by import path.
type Graph map[string]*Package

// Violation is one breach of a rule: Package imports Import (through
// Via, when a package it reaches makes the import) or uses a forbidden
// function or a go statement (Call, at Pos).
type Violation struct {
	Rule    string
	Package string
	Import  string
	Via     []string // Package, ..., the importer; nil when Package imports it itself
	Call    string
	Pos     string // file:line of the use
}

func (v *Violation) Error() string {
	switch {
	case v.Call != "":
		return fmt.Sprintf("%s uses %s at %s (rule: %s)", v.Package, v.Call, v.Pos, v.Rule)
	case v.Via != nil:
		return fmt.Sprintf("%s imports %s through %s -> %s (rule: %s)", v.Package, v.Import, strings.Join(v.Via, " -> "), v.Import, v.Rule)
	default:
		return fmt.Sprintf("%s imports %s (rule: %s)", v.Package, v.Import, v.Rule)
	}
}

// Check returns the rule's violations in g (each *Violation), and what
// makes the rule itself unsound: no package matched, a boundary never
// reached, a package missing from g or a file that does not parse.
func (r Rule) Check(g Graph) []error {
	targets := r.targets(g)
	if len(targets) == 0 {
		return []error{fmt.Errorf("rule %q: no package matches %v", r.Name, r.Packages)}
	}
	met := make([]bool, len(r.Boundary))
	var errs []error
	for _, p := range targets {
		errs = append(errs, r.checkImports(g, p, met)...)
		errs = append(errs, r.checkSource(p)...)
	}
	for i, b := range r.Boundary {
		if !met[i] {
			errs = append(errs, fmt.Errorf("rule %q: boundary %s is never reached; drop it", r.Name, b.Package))
		}
	}
	return errs
}

// targets are the packages of g the rule applies to, by import path.
func (r Rule) targets(g Graph) []*Package {
	var out []*Package
	for _, path := range slices.Sorted(maps.Keys(g)) {
		if p := g[path]; !p.Standard && matchAny(r.Packages, path) && !matchAny(r.Except, path) {
			out = append(out, p)
		}
	}
	return out
}

// checkImports walks from root (Reach) and reports each forbidden import
// once, with the shortest chain that makes it; met records the
// boundaries the walk stopped at.
func (r Rule) checkImports(g Graph, root *Package, met []bool) []error {
	if len(r.Forbid) == 0 {
		return nil
	}
	var errs []error
	parent := map[string]string{root.ImportPath: ""}
	reported := map[string]bool{}
	queue := []*Package{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range p.Imports {
			if matchAny(r.Forbid, imp) {
				if !reported[imp] {
					reported[imp] = true
					errs = append(errs, &Violation{Rule: r.Name, Package: root.ImportPath, Import: imp, Via: chain(parent, p.ImportPath)})
				}
				continue
			}
			if _, seen := parent[imp]; seen || r.Reach != Through {
				continue
			}
			dep := g[imp]
			switch i := r.boundary(imp); {
			case dep == nil:
				errs = append(errs, fmt.Errorf("rule %q: %s imports %s, which the build graph lacks", r.Name, p.ImportPath, imp))
			case dep.Standard:
			case i >= 0:
				met[i] = true
			default:
				parent[imp] = p.ImportPath
				queue = append(queue, dep)
			}
		}
	}
	return errs
}

// boundary is the index of the rule's boundary that path matches, or -1.
func (r Rule) boundary(path string) int {
	for i, b := range r.Boundary {
		if match(b.Package, path) {
			return i
		}
	}
	return -1
}

// chain is the import chain from the walk's root to importer; nil when
// importer is the root.
func chain(parent map[string]string, importer string) []string {
	if parent[importer] == "" {
		return nil
	}
	var out []string
	for p := importer; p != ""; p = parent[p] {
		out = append([]string{p}, out...)
	}
	return out
}

func matchAny(patterns []string, path string) bool {
	for _, pat := range patterns {
		if match(pat, path) {
			return true
		}
	}
	return false
}

// match reports whether path is pattern, or below it when pattern ends
// in "/...".
func match(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}
