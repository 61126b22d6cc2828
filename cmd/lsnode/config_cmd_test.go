package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestConfigCheck_Golden: config check prints one line for a good file
// and exits 0; for a bad one it prints every problem and exits 1. It
// reads no variable: LSNODE_HTTP here does not make public.yaml valid
// nor mesh.yaml invalid. testdata/config_check.golden holds the output.
func TestConfigCheck_Golden(t *testing.T) {
	clearEnv(t)
	t.Setenv("LSNODE_HTTP", "127.0.0.1:1")
	t.Setenv("LSNODE_TOKEN", "from-env")
	var all strings.Builder
	for _, name := range []string{"mesh.yaml", "empty.yaml", "mistakes.yaml", "public.yaml", "missing.yaml"} {
		path := filepath.Join("testdata", "config", name)
		code, stdout, stderr := runCLI(t, "config", "check", path)
		want := exitOK
		if name == "mistakes.yaml" || name == "public.yaml" || name == "missing.yaml" {
			want = exitFailure
		}
		if code != want {
			t.Errorf("config check %s: exit %d, want %d", name, code, want)
		}
		if (code == exitOK) != (stderr == "") || (code == exitOK) == (stdout == "") || strings.Count(stdout, "\n") > 1 {
			t.Errorf("config check %s: stdout %q stderr %q; want one line on stdout, or the error on stderr", name, stdout, stderr)
		}
		fmt.Fprintf(&all, "$ lsnode config check %s\n%s%sexit %d\n\n", path, stdout, stderr, code)
	}
	for args, want := range map[string]string{
		"config check":                                    "give FILE, then any serve flags",
		"config check --http=127.0.0.1:1 a.yml":           "flag provided but not defined: --http",
		"config check testdata/config/empty.yaml extra":   `unexpected argument "extra"`,
		"config check testdata/config/empty.yaml --nope":  "flag provided but not defined: --nope",
		"config check testdata/config/empty.yaml --data=": "", // exit 1: a value the node refuses
	} {
		code, _, stderr := runCLI(t, strings.Fields(args)...)
		if want == "" {
			if code != exitFailure || !strings.Contains(stderr, "DataDir is required") {
				t.Errorf("%s: exit %d, %q", args, code, stderr)
			}
			continue
		}
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %q, want exit 2 and %q", args, code, stderr, want)
		}
	}
	// The flags a deployment passes beside the file count, as serve's do.
	if code, stdout, stderr := runCLI(t, "config", "check", "testdata/config/public.yaml", "--token-file=/etc/lsnode/token"); code != exitOK {
		t.Errorf("public.yaml with --token-file: exit %d, %q %q", code, stdout, stderr)
	}
	checkGolden(t, "config_check.golden", []byte(all.String()))
}

// TestConfigCheck_DeployExamples: the configuration files of deploy/
// pass config check: compose's and the Kubernetes ConfigMap's alone (the
// token file is in them), systemd's with the --token-file its unit
// passes.
func TestConfigCheck_DeployExamples(t *testing.T) {
	clearEnv(t)
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	raw, err := os.ReadFile("../../deploy/k8s/configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &cm); err != nil || cm.Data["lsnode.yaml"] == "" {
		t.Fatalf("deploy/k8s/configmap.yaml holds no lsnode.yaml (%v)", err)
	}
	k8s := filepath.Join(t.TempDir(), "lsnode.yaml")
	if err := os.WriteFile(k8s, []byte(cm.Data["lsnode.yaml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"../../deploy/compose/lsnode.yaml"},
		{k8s},
		{"../../deploy/systemd/lsnode.yaml.example", "--token-file=/run/credentials/lsnode.service/token"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"config", "check"}, args...)...)
		if code != exitOK || !strings.Contains(stdout, ": ok: ") {
			t.Errorf("config check %v: exit %d, %q %q", args, code, stdout, stderr)
		}
		t.Logf("%s", strings.TrimSpace(stdout))
	}
}

// TestConfigCheck_OperationsExample: the complete example of
// docs/operations.md ("Configuration file") passes config check with the
// summary the document shows.
func TestConfigCheck_OperationsExample(t *testing.T) {
	clearEnv(t)
	raw, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	_, rest, ok := strings.Cut(doc, "## Configuration file\n")
	_, rest, ok2 := strings.Cut(rest, "```yaml\n")
	example, rest, ok3 := strings.Cut(rest, "```")
	_, rest, ok4 := strings.Cut(rest, "$ lsnode config check /etc/lsnode/lsnode.yaml\n")
	shown, _, ok5 := strings.Cut(rest, "\n")
	if !ok || !ok2 || !ok3 || !ok4 || !ok5 {
		t.Fatal("docs/operations.md has no configuration file example followed by its config check")
	}
	path := filepath.Join(t.TempDir(), "lsnode.yaml")
	if err := os.WriteFile(path, []byte(example), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "config", "check", path)
	_, got, _ := strings.Cut(strings.TrimSpace(stdout), ": ok: ")
	_, want, _ := strings.Cut(shown, ": ok: ")
	if code != exitOK || got != want {
		t.Fatalf("config check of the example: exit %d, %q %q; the document shows %q", code, stdout, stderr, shown)
	}
}
