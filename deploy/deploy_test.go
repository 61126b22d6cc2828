package deploy

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/lsnode/lsnode/internal/promrules"
)

// The alert rules and the scrape configurations, checked with the promtool
// of Debian's prometheus package (scripts/tools.sh installs it).

func TestRules_PromtoolCheck(t *testing.T) {
	promtool := requireTool(t, "promtool", "the alert rules")
	out := mustRun(t, "prometheus", promtool, "check", "rules", "rules.yml")
	t.Logf("promtool check rules:\n%s", out)
}

// TestRules_PromtoolUnitTests runs prometheus/rules_test.yml: every alert
// fires with its exact labels and annotations on the series that should
// raise it, and stays silent on the ones that should not.
func TestRules_PromtoolUnitTests(t *testing.T) {
	promtool := requireTool(t, "promtool", "the alert rule unit tests")
	out := mustRun(t, "prometheus", promtool, "test", "rules", "rules_test.yml")
	t.Logf("promtool test rules:\n%s", out)
}

// TestRules_EveryAlertTested keeps rules_test.yml complete: each alert of
// rules.yml has a case where it fires and one where it does not.
func TestRules_EveryAlertTested(t *testing.T) {
	var tests struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	decodeYAMLFile(t, "prometheus/rules_test.yml", &tests, false)
	firing, silent := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				firing[a.Alertname] = true
			} else {
				silent[a.Alertname] = true
			}
		}
	}
	for _, r := range loadRules(t).Alerts() {
		if !firing[r.Alert] || !silent[r.Alert] {
			t.Errorf("alert %s: rules_test.yml has a firing case: %v, a silent case: %v; want both", r.Alert, firing[r.Alert], silent[r.Alert])
		}
	}
}

// TestRules_Labels checks what routing relies on: a severity of critical or
// warning, and a summary and a description.
func TestRules_Labels(t *testing.T) {
	for _, r := range loadRules(t).Alerts() {
		if s := r.Labels["severity"]; s != "critical" && s != "warning" {
			t.Errorf("alert %s: severity %q, want critical or warning", r.Alert, s)
		}
		if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
			t.Errorf("alert %s: needs a summary and a description annotation", r.Alert)
		}
	}
}

// TestPrometheusConfig_PromtoolCheck checks both scrape configurations. The
// credential files they name exist only in a container or a pod, so each is
// checked from a copy that names a temporary token file instead.
func TestPrometheusConfig_PromtoolCheck(t *testing.T) {
	promtool := requireTool(t, "promtool", "the Prometheus configurations")
	for _, tc := range []struct{ file, credentials string }{
		{"prometheus.yml", "/run/secrets/lsnode_token"},
		{"k8s-scrape.yml", "/etc/prometheus/secrets/lsnode/token"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw := readFile(t, filepath.Join("prometheus", tc.file))
			if !strings.Contains(raw, "credentials_file: "+tc.credentials+"\n") {
				t.Fatalf("%s does not read the token from %s", tc.file, tc.credentials)
			}
			dir := t.TempDir()
			token := filepath.Join(dir, "token")
			writeFile(t, token, "test-token")
			writeFile(t, filepath.Join(dir, "rules.yml"), readFile(t, "prometheus/rules.yml"))
			cfg := filepath.Join(dir, tc.file)
			writeFile(t, cfg, strings.ReplaceAll(raw, tc.credentials, token))
			out, err := run(t, dir, promtool, "check", "config", cfg)
			if err != nil && strings.Contains(out, "field kubernetes_sd_configs not found") {
				// Debian builds Prometheus without Kubernetes discovery;
				// check the rest with a static target in its place.
				t.Logf("this promtool lacks kubernetes_sd_configs (%s); checking the rest with static_configs in its place",
					strings.TrimSpace(firstLine(mustRun(t, dir, promtool, "--version"))))
				writeFile(t, cfg, withoutKubernetesSD(t, strings.ReplaceAll(raw, tc.credentials, token)))
				out, err = run(t, dir, promtool, "check", "config", cfg)
			}
			if err != nil {
				t.Fatalf("promtool check config %s: %v\n%s", tc.file, err, out)
			}
			t.Logf("promtool check config %s:\n%s", tc.file, out)
		})
	}
}

// withoutKubernetesSD replaces each kubernetes_sd_configs of a Prometheus
// configuration by a static target.
func withoutKubernetesSD(t *testing.T, cfg string) string {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(cfg), &doc); err != nil {
		t.Fatal(err)
	}
	jobs, _ := doc["scrape_configs"].([]any)
	for _, j := range jobs {
		job := j.(map[string]any)
		if _, ok := job["kubernetes_sd_configs"]; ok {
			delete(job, "kubernetes_sd_configs")
			job["static_configs"] = []any{map[string]any{"targets": []any{"lsnode-0:8765"}}}
		}
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func loadRules(t *testing.T) promrules.File {
	t.Helper()
	f, err := promrules.Load("prometheus/rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// requireTool returns the path of a command, or skips the test saying
// what goes unchecked.
func requireTool(t *testing.T, name, what string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("SKIPPED: %s is not installed, so %s are NOT checked (scripts/tools.sh installs it)", name, what)
	}
	return path
}

// run runs a command in dir and returns its combined output.
func run(t *testing.T, dir, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func mustRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := run(t, dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// decodeYAMLFile decodes one YAML document; strict refuses fields that v
// does not declare, so a misspelt key fails instead of vanishing.
func decodeYAMLFile(t *testing.T, path string, v any, strict bool) {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(readFile(t, path)))
	dec.KnownFields(strict)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
