package importrules

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// checkSource reports, in p's non-test files, every use (a call, or the
// function taken as a value) of the rule's Calls and, under NoGo, every go
// statement.
func (r Rule) checkSource(p *Package) []error {
	if len(r.Calls) == 0 && !r.NoGo {
		return nil
	}
	var errs []error
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			errs = append(errs, fmt.Errorf("rule %q: %w", r.Name, err))
			continue
		}
		for _, call := range r.Calls {
			for _, pos := range uses(f, call) {
				errs = append(errs, &Violation{Rule: r.Name, Package: p.ImportPath, Call: call, Pos: relPos(fset.Position(pos), p.Dir)})
			}
		}
		if r.NoGo {
			ast.Inspect(f, func(n ast.Node) bool {
				if g, ok := n.(*ast.GoStmt); ok {
					errs = append(errs, &Violation{Rule: r.Name, Package: p.ImportPath, Call: "a go statement", Pos: relPos(fset.Position(g.Pos()), p.Dir)})
				}
				return true
			})
		}
	}
	return errs
}

// uses returns where file f refers to fn ("importpath.Name") through its
// import of importpath. The import's name is taken to be the last element
// of its path unless the file renames it; a dot import counts as a use
// (at the import), since its uses cannot be told from local names.
func uses(f *ast.File, fn string) []token.Pos {
	i := strings.LastIndex(fn, ".")
	importPath, name := fn[:i], fn[i+1:]
	local := ""
	for _, spec := range f.Imports {
		if p, err := strconv.Unquote(spec.Path.Value); err == nil && p == importPath {
			local = path.Base(p)
			if spec.Name != nil {
				local = spec.Name.Name
			}
			if local == "." {
				return []token.Pos{spec.Pos()}
			}
		}
	}
	if local == "" || local == "_" {
		return nil
	}
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok && x.Name == local && s.Sel.Name == name {
				out = append(out, s.Pos())
			}
		}
		return true
	})
	return out
}

// relPos renders pos as file:line, the file relative to dir's parent so
// that it names the package folder.
func relPos(pos token.Position, dir string) string {
	file := pos.Filename
	if rel, err := filepath.Rel(filepath.Dir(dir), file); err == nil {
		file = rel
	}
	return fmt.Sprintf("%s:%d", filepath.ToSlash(file), pos.Line)
}
