package promrules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(good, []byte(`groups:
  - name: g
    rules:
      - record: job:x:sum
        expr: sum(x)
      - alert: A
        expr: lsnode_a > 0
        for: 1m
        labels: {severity: warning}
        annotations: {summary: s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	alerts := f.Alerts()
	if len(alerts) != 1 || alerts[0].Alert != "A" || alerts[0].Expr != "lsnode_a > 0" || alerts[0].Labels["severity"] != "warning" {
		t.Errorf("Alerts() = %+v", alerts)
	}
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("groups:\n  - name: g\n    rules:\n      - alert: A\n        exprs: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "exprs") {
		t.Errorf("Load of a misspelt key: %v", err)
	}
}
