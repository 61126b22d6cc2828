package deploy

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/promrules"
)

var update = flag.Bool("update", false, "rewrite the metrics table of README.md from the code")

// metric is one collector the node's code declares.
type metric struct {
	name, kind, help string
	labels           []string
	file             string // relative to the repository root
}

// TestMetrics_RulesUseExportedNames fails when an alert or recording rule
// names a metric that no collector in the code declares (a rename that
// would silence an alert).
func TestMetrics_RulesUseExportedNames(t *testing.T) {
	declared := declaredMetrics(t)
	for _, r := range loadRules(t).Alerts() {
		for _, sel := range promrules.Selectors(r.Expr, "lsnode_") {
			name := sel.Name
			base := seriesBase(name, declared)
			if _, ok := declared[base]; ok {
				continue
			}
			t.Errorf("alert %s uses %s, which no collector in the code declares", r.Alert, name)
		}
	}
}

// TestMetrics_READMETable keeps the metrics table of README.md equal to
// what the code declares. `go test ./deploy/ -run READMETable -update`
// rewrites it.
func TestMetrics_READMETable(t *testing.T) {
	const begin, end = "<!-- metrics table: begin (go test ./deploy/ -run READMETable -update) -->\n", "<!-- metrics table: end -->\n"
	readme := readFile(t, "README.md")
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the markers %q and %q", begin, end)
	}
	want := metricsTable(declaredMetrics(t))
	if got := readme[i+len(begin) : j]; got != want {
		if *update {
			writeFile(t, "README.md", readme[:i+len(begin)]+want+readme[j:])
			t.Logf("README.md: metrics table rewritten")
			return
		}
		t.Errorf("README.md's metrics table differs from the code; run go test ./deploy/ -run READMETable -update\n--- README.md\n%s\n--- code\n%s", got, want)
	}
}

func metricsTable(declared map[string]metric) string {
	names := make([]string, 0, len(declared))
	for n := range declared {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("| metric | type | labels | help | declared in |\n|---|---|---|---|---|\n")
	for _, n := range names {
		m := declared[n]
		labels := "–"
		if len(m.labels) > 0 {
			labels = "`" + strings.Join(m.labels, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | `%s` |\n", m.name, m.kind, labels, strings.ReplaceAll(m.help, "|", `\|`), m.file)
	}
	return b.String()
}

// seriesBase maps a series name to its metric: a histogram's _bucket, _sum
// and _count series to the histogram.
func seriesBase(name string, declared map[string]metric) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if m, ok := declared[base]; ok && (m.kind == "histogram" || m.kind == "summary") {
				return base
			}
		}
	}
	return name
}

// constructors maps the client_golang constructors to a metric type.
var constructors = map[string]string{
	"NewCounter": "counter", "NewCounterVec": "counter", "NewCounterFunc": "counter",
	"NewGauge": "gauge", "NewGaugeVec": "gauge", "NewGaugeFunc": "gauge",
	"NewHistogram": "histogram", "NewHistogramVec": "histogram",
	"NewSummary": "summary", "NewSummaryVec": "summary",
}

// declaredMetrics reads the collectors that the repository's non-test Go
// code declares: calls of the client_golang constructors with a literal
// Opts{Name, Help}, and prometheus.NewDesc with literal arguments (typed by
// the one *Value kind its file uses).
func declaredMetrics(t *testing.T) map[string]metric {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]metric{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "deploy" || rel == "e2e") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, m := range fileMetrics(f) {
			m.file = filepath.ToSlash(rel)
			if prev, ok := out[m.name]; ok && prev.file != m.file {
				t.Errorf("metric %s declared in %s and %s", m.name, prev.file, m.file)
			}
			out[m.name] = m
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("found no metric declared in the code")
	}
	return out
}

func fileMetrics(f *ast.File) []metric {
	var found []metric
	valueKinds := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			switch n.Sel.Name {
			case "GaugeValue":
				valueKinds["gauge"] = true
			case "CounterValue":
				valueKinds["counter"] = true
			case "UntypedValue":
				valueKinds["untyped"] = true
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if kind, ok := constructors[sel.Sel.Name]; ok && len(n.Args) > 0 {
				if m, ok := optsMetric(n.Args[0]); ok {
					m.kind = kind
					if len(n.Args) > 1 {
						m.labels = stringSlice(n.Args[1])
					}
					found = append(found, m)
				}
			}
			if sel.Sel.Name == "NewDesc" && len(n.Args) >= 3 {
				name, ok1 := stringLit(n.Args[0])
				help, ok2 := stringLit(n.Args[1])
				if ok1 && ok2 && strings.HasPrefix(name, "lsnode_") {
					found = append(found, metric{name: name, help: help, labels: stringSlice(n.Args[2]), kind: "desc"})
				}
			}
		}
		return true
	})
	for i := range found {
		if found[i].kind == "desc" {
			found[i].kind = "untyped"
			if len(valueKinds) == 1 {
				for k := range valueKinds {
					found[i].kind = k
				}
			}
		}
	}
	return found
}

// optsMetric reads Name and Help from a literal prometheus.*Opts.
func optsMetric(e ast.Expr) (metric, bool) {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return metric{}, false
	}
	var m metric
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, _ := kv.Key.(*ast.Ident)
		if key == nil {
			continue
		}
		switch key.Name {
		case "Name":
			m.name, _ = stringLit(kv.Value)
		case "Help":
			m.help, _ = stringLit(kv.Value)
		}
	}
	return m, strings.HasPrefix(m.name, "lsnode_")
}

// stringLit evaluates a string literal or a + concatenation of them.
func stringLit(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		l, ok1 := stringLit(e.X)
		r, ok2 := stringLit(e.Y)
		return l + r, ok1 && ok2
	case *ast.ParenExpr:
		return stringLit(e.X)
	}
	return "", false
}

func stringSlice(e ast.Expr) []string {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []string
	for _, el := range lit.Elts {
		if s, ok := stringLit(el); ok {
			out = append(out, s)
		}
	}
	return out
}
