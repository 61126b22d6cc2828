package docscheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writePackage makes root/dir with one test file holding src's functions.
func writePackage(t *testing.T, root, dir, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "//go:build e2e\n\npackage p\n\nimport \"testing\"\n\n" + src
	if err := os.WriteFile(filepath.Join(root, dir, "x_test.go"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCommands_ReadsTableAndSpans(t *testing.T) {
	doc := "Run `go test -run '^$' -bench 'A\\|B/x=1' -benchtime 10x ./p/` first.\n" +
		"| row | `LSNODE_X=1 go test -run '^$' -bench 'A\\|B/x=1' ./p/ ./q/` | `make bench` |\n" +
		"| row | `make build && go test -tags e2e -run=TestE2E -v ./e2e/` | `go test -c -o /tmp/b ./p/` |\n"
	cmds, err := Commands(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 3 {
		t.Fatalf("got %d commands, want 3: %+v", len(cmds), cmds)
	}
	// Outside a table a backslash stays: the shell hands it to the regexp.
	if cmds[0].Bench != `A\|B/x=1` || cmds[0].Run != "^$" || !slices.Equal(cmds[0].Packages, []string{"./p/"}) || cmds[0].Line != 1 {
		t.Errorf("first command: %+v", cmds[0])
	}
	if cmds[1].Bench != "A|B/x=1" || !slices.Equal(cmds[1].Packages, []string{"./p/", "./q/"}) || cmds[1].Line != 2 {
		t.Errorf("table command: %+v", cmds[1])
	}
	if cmds[2].Run != "TestE2E" || cmds[2].Bench != "" || !slices.Equal(cmds[2].Packages, []string{"./e2e/"}) {
		t.Errorf("command after &&: %+v", cmds[2])
	}
}

func TestCheck_NamesThePackageWithoutTheBenchmark(t *testing.T) {
	root := t.TempDir()
	writePackage(t, root, "p", "func BenchmarkAppend(b *testing.B) {}\nfunc TestAppend(t *testing.T) {}\n")
	writePackage(t, root, "q", "func BenchmarkList(b *testing.B) {}\n")
	cmds, err := Commands("| a | `go test -run '^$' -bench 'Append/goroutines=(1\\|32)$' ./p/ ./q/` |\n" +
		"| b | `go test -run '^TestAppend$' ./p/` |\n" +
		"| c | `go test -run TestGone ./q/` |\n" +
		"| d | `go test -run '^$' -bench 'Append\\|Gone' ./p/` |\n")
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Check(root, cmds)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 3 || !strings.Contains(problems[0], "line 1: -bench") || !strings.Contains(problems[0], "in ./q/") ||
		!strings.Contains(problems[1], "line 3: -run \"TestGone\"") || !strings.Contains(problems[2], "line 4: -bench \"Append|Gone\": \"Gone\" selects no") {
		t.Errorf("problems:\n%s", strings.Join(problems, "\n"))
	}
}

func TestCheck_MissingPackage(t *testing.T) {
	cmds, err := Commands("`go test -bench X ./nowhere/`")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(t.TempDir(), cmds); err == nil {
		t.Error("a command naming a directory that does not exist was accepted")
	}
}

func TestAlternatives(t *testing.T) {
	for pattern, want := range map[string][]string{
		"MCPAppend/store=none(,via=sdk)?$":                  {"MCPAppend"},
		"BenchmarkMCPHandler/tool=(append|list,events=50)$": {"BenchmarkMCPHandler"},
		"^Benchmark(Awaiting|Search)$":                      {"^Benchmark(Awaiting|Search)$"},
		"AppendPaced/linger=on|Append/goroutines=1$":        {"AppendPaced", "Append"},
		"MCPWaitWake|SSEDelivery":                           {"MCPWaitWake", "SSEDelivery"},
		"A[/|]B/c":                                          {"A[/|]B"},
		`A\/B/c`:                                            {`A\/B`},
	} {
		res, err := alternatives(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, re := range res {
			got = append(got, re.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("alternatives(%q) = %q, want %q", pattern, got, want)
		}
	}
}
