package importrules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// graph builds a Graph from importer -> imports; the packages in std are
// the standard library's.
func graph(edges map[string][]string, std ...string) Graph {
	g := Graph{}
	add := func(path string) *Package {
		if g[path] == nil {
			g[path] = &Package{ImportPath: path}
		}
		return g[path]
	}
	for from, imports := range edges {
		add(from).Imports = imports
		for _, imp := range imports {
			add(imp)
		}
	}
	for _, s := range std {
		add(s).Standard = true
	}
	return g
}

// errorTexts runs r on g and returns the error texts.
func errorTexts(r Rule, g Graph) []string {
	var out []string
	for _, err := range r.Check(g) {
		out = append(out, err.Error())
	}
	return out
}

func wantTexts(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var coreRule = Rule{Name: "no I/O", Packages: []string{"m/core"}, Forbid: []string{"net", "net/http/...", "os/..."}, Reach: Through}

// An import made by a package the core reaches is the core's, named with
// the chain that reaches it.
func TestCheck_ThroughNamesTheChain(t *testing.T) {
	g := graph(map[string][]string{"m/core": {"m/lib", "fmt"}, "m/lib": {"m/deep"}, "m/deep": {"net/http"}}, "fmt", "net/http")
	wantTexts(t, errorTexts(coreRule, g),
		"m/core imports net/http through m/core -> m/lib -> m/deep -> net/http (rule: no I/O)")
	g["m/core"].Imports = append(g["m/core"].Imports, "os/exec")
	g["os/exec"] = &Package{ImportPath: "os/exec", Standard: true}
	wantTexts(t, errorTexts(coreRule, g),
		"m/core imports os/exec (rule: no I/O)",
		"m/core imports net/http through m/core -> m/lib -> m/deep -> net/http (rule: no I/O)")
}

// The standard library's own imports are not the core's: fmt imports os.
func TestCheck_StandardLibraryIsALeaf(t *testing.T) {
	g := graph(map[string][]string{"m/core": {"fmt", "net/url"}, "fmt": {"os"}}, "fmt", "os", "net/url")
	wantTexts(t, errorTexts(coreRule, g))
}

// A boundary may be imported, and the walk does not go through it; one
// that the walk never meets fails the rule.
func TestCheck_Boundary(t *testing.T) {
	g := graph(map[string][]string{"m/core": {"m/store"}, "m/store": {"os"}}, "os")
	wantTexts(t, errorTexts(coreRule, g), "m/core imports os through m/core -> m/store -> os (rule: no I/O)")
	bounded := coreRule
	bounded.Boundary = []Boundary{{Package: "m/store", Why: "its files"}}
	wantTexts(t, errorTexts(bounded, g))
	bounded.Boundary = append(bounded.Boundary, Boundary{Package: "m/gone/...", Why: "once"})
	wantTexts(t, errorTexts(bounded, g), `rule "no I/O": boundary m/gone/... is never reached; drop it`)
}

// A Direct rule counts the package's own imports only.
func TestCheck_Direct(t *testing.T) {
	r := Rule{Name: "cmd imports no store", Packages: []string{"m/cmd/..."}, Forbid: []string{"m/store/..."}, Reach: Direct}
	g := graph(map[string][]string{"m/cmd/x": {"m/node"}, "m/node": {"m/store"}})
	wantTexts(t, errorTexts(r, g))
	g["m/cmd/x"].Imports = append(g["m/cmd/x"].Imports, "m/store/rules")
	g["m/store/rules"] = &Package{ImportPath: "m/store/rules"}
	wantTexts(t, errorTexts(r, g), "m/cmd/x imports m/store/rules (rule: cmd imports no store)")
}

// A rule that matches no package would check nothing: it fails.
func TestCheck_NoPackageMatched(t *testing.T) {
	wantTexts(t, errorTexts(coreRule, graph(map[string][]string{"m/other": nil})),
		`rule "no I/O": no package matches [m/core]`)
}

// Calls finds the uses of a function through the file's name for its
// import, renamed or not, outside Except.
func TestCheck_Calls(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"a.go": "package node\n\nimport xos \"os\"\n\nfunc a() string { return xos.Getenv(\"A\") }\n",
		"b.go": "package node\n\nimport \"os\"\n\nvar lookup = os.LookupEnv\n\nfunc b() { _ = os.Args }\n",
		"c.go": "package node\n\nimport \"strings\"\n\nfunc c() string { return strings.ToLower(\"Getenv\") }\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := Graph{
		"m/node":  {ImportPath: "m/node", Dir: dir, GoFiles: []string{"a.go", "b.go", "c.go"}},
		"m/cmd/x": {ImportPath: "m/cmd/x", Dir: dir, GoFiles: []string{"a.go"}},
	}
	r := Rule{Name: "no env below cmd", Packages: []string{"m/..."}, Except: []string{"m/cmd/..."}, Calls: []string{"os.Getenv", "os.LookupEnv"}}
	wantTexts(t, errorTexts(r, g),
		"m/node uses os.Getenv at node/a.go:5 (rule: no env below cmd)",
		"m/node uses os.LookupEnv at node/b.go:5 (rule: no env below cmd)")
}

// NoGo finds every go statement of the package's files.
func TestCheck_NoGo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "core")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package core\n\nfunc run(f func()) {\n\tf()\n\tgo f()\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "run.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Rule{Name: "no goroutines", Packages: []string{"m/core"}, NoGo: true}
	g := Graph{"m/core": {ImportPath: "m/core", Dir: dir, GoFiles: []string{"run.go"}}}
	wantTexts(t, errorTexts(r, g), "m/core uses a go statement at core/run.go:5 (rule: no goroutines)")
}
