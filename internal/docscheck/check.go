package docscheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Check checks each command against the test functions of the packages it
// names, with paths relative to root. It returns a problem for each
// package in which a pattern selects no function, and, when a pattern has
// several alternatives (its parts around a top-level |), for each one
// that selects none in any of the command's packages.
func Check(root string, cmds []Command) ([]string, error) {
	var problems []string
	for _, c := range cmds {
		if len(c.Packages) == 0 {
			problems = append(problems, fmt.Sprintf("line %d: %s names no ./package/", c.Line, c.Text))
		}
		funcs := make([][]string, len(c.Packages))
		for i, pkg := range c.Packages {
			names, err := testFuncs(filepath.Join(root, pkg))
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", c.Line, err)
			}
			funcs[i] = names
		}
		for _, sel := range []struct{ flag, pattern string }{{"-bench", c.Bench}, {"-run", c.Run}} {
			if sel.pattern == "" || (sel.flag == "-run" && sel.pattern == "^$") {
				continue
			}
			kinds := []string{"Benchmark"}
			if sel.flag == "-run" {
				kinds = []string{"Test", "Fuzz", "Example"}
			}
			alts, err := alternatives(sel.pattern)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s %q: %w", c.Line, sel.flag, sel.pattern, err)
			}
			used := make([]bool, len(alts))
			for i, pkg := range c.Packages {
				found := false
				for j, re := range alts {
					if selects(re, funcs[i], kinds) {
						found, used[j] = true, true
					}
				}
				if !found {
					problems = append(problems, fmt.Sprintf("line %d: %s %q selects no %s function in %s: %s",
						c.Line, sel.flag, sel.pattern, strings.Join(kinds, "/"), pkg, c.Text))
				}
			}
			for j, u := range used {
				if !u && len(alts) > 1 && len(c.Packages) > 0 {
					problems = append(problems, fmt.Sprintf("line %d: %s %q: %q selects no %s function in %s: %s",
						c.Line, sel.flag, sel.pattern, alts[j].String(), strings.Join(kinds, "/"), strings.Join(c.Packages, " "), c.Text))
				}
			}
		}
	}
	return problems, nil
}

// selects reports whether re matches one of names that starts with one of
// kinds.
func selects(re *regexp.Regexp, names, kinds []string) bool {
	for _, n := range names {
		for _, k := range kinds {
			if strings.HasPrefix(n, k) && re.MatchString(n) {
				return true
			}
		}
	}
	return false
}

// alternatives splits a -bench or -run pattern as the testing package
// does: at each | outside brackets and parentheses into alternatives, and
// each alternative at its first such / ; what comes before that slash is
// matched against top-level names. It returns those first parts.
func alternatives(pattern string) ([]*regexp.Regexp, error) {
	var firsts []string
	brackets, parens, start, slash := 0, 0, 0, -1
	end := func(i int) {
		if slash < 0 {
			slash = i
		}
		firsts = append(firsts, pattern[start:slash])
		start, slash = i+1, -1
	}
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[':
			brackets++
		case ']':
			brackets = max(0, brackets-1)
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '/':
			if brackets == 0 && parens == 0 && slash < 0 {
				slash = i
			}
		case '|':
			if brackets == 0 && parens == 0 {
				end(i)
			}
		}
	}
	end(len(pattern))
	res := make([]*regexp.Regexp, len(firsts))
	for i, f := range firsts {
		re, err := regexp.Compile(f)
		if err != nil {
			return nil, err
		}
		res[i] = re
	}
	return res, nil
}

// testFuncs lists the names of the functions without a receiver in the
// _test.go files of dir.
func testFuncs(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, err
		}
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, nil
}
