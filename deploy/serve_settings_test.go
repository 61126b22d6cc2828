package deploy

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// serveSettings are the serve settings a deployment runs a node with, by
// flag name: those of its configuration file (the --config of args, found
// in files by its path where the node runs), under the flags of args. A
// list of the file is joined with commas, as its flag takes it. The file's
// own checks (keys, types, values) are cmd/lsnode's: its tests run
// `lsnode config check` on every configuration file of deploy/.
func serveSettings(t *testing.T, args []string, files map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if path, ok := flagValue(args, "config"); ok {
		body, ok := files[path]
		if !ok {
			t.Fatalf("--config=%s is not a file the deployment provides (%d provided)", path, len(files))
		}
		var groups map[string]map[string]any
		if err := yaml.Unmarshal([]byte(body), &groups); err != nil {
			t.Fatalf("--config=%s: %v", path, err)
		}
		for _, settings := range groups {
			for name, v := range settings {
				if list, ok := v.([]any); ok {
					items := make([]string, len(list))
					for i, item := range list {
						items[i] = fmt.Sprint(item)
					}
					v = strings.Join(items, ",")
				}
				out[name] = fmt.Sprint(v)
			}
		}
	}
	for _, a := range args {
		if name, v, ok := strings.Cut(strings.TrimPrefix(a, "--"), "="); ok && name != "config" {
			out[name] = v
		}
	}
	return out
}
