package promrules

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// File is a rule file.
type File struct {
	Groups []Group `yaml:"groups"`
}

// Group is one rule group.
type Group struct {
	Name  string `yaml:"name"`
	Rules []Rule `yaml:"rules"`
}

// Rule is an alerting rule (Alert set) or a recording rule (Record set).
type Rule struct {
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// Load reads a rule file strictly: a field this package does not know (a
// misspelt key) is an error rather than a rule that silently lacks it.
func Load(path string) (File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	var f File
	if err := dec.Decode(&f); err != nil {
		return File{}, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Alerts returns the alerting rules of every group, in file order.
func (f File) Alerts() []Rule {
	var out []Rule
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	return out
}
