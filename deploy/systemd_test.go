package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The systemd unit, checked by systemd-analyze (Debian's systemd package)
// and for the settings the deployment relies on.

const unitPath = "systemd/lsnode.service"

// unitForAnalysis copies the unit into a temporary directory with
// ExecStart's binary replaced by an executable that exists here (the test
// binary itself): verify refuses a unit whose binary is missing.
func unitForAnalysis(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unit := readFile(t, unitPath)
	if !strings.Contains(unit, "ExecStart=/usr/local/bin/lsnode serve ") {
		t.Fatal("ExecStart does not run /usr/local/bin/lsnode serve")
	}
	path := filepath.Join(t.TempDir(), "lsnode.service")
	writeFile(t, path, strings.ReplaceAll(unit, "/usr/local/bin/lsnode", self))
	return path
}

// TestSystemd_Verify runs systemd-analyze verify and fails on anything it
// says: an unknown or misspelt directive is only a warning to it.
func TestSystemd_Verify(t *testing.T) {
	analyze := requireTool(t, "systemd-analyze", "the systemd unit's directives")
	path := unitForAnalysis(t)
	out, err := run(t, filepath.Dir(path), analyze, "verify", "--man=no", path)
	if err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestSystemd_Security holds the unit to an exposure of at most 2.0 on
// systemd-analyze security's 0-10 scale (it reads 1.2 as written).
func TestSystemd_Security(t *testing.T) {
	analyze := requireTool(t, "systemd-analyze", "the systemd unit's sandboxing")
	path := unitForAnalysis(t)
	out, err := run(t, filepath.Dir(path), analyze, "security", "--offline=yes", "--threshold=20", path)
	level := regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+ \S+)`).FindStringSubmatch(out)
	if err != nil || level == nil {
		t.Fatalf("systemd-analyze security --threshold=20: %v\n%s", err, out)
	}
	t.Logf("exposure level %s", level[1])
}

// TestSystemd_Settings checks the directives the deployment relies on,
// whether or not systemd-analyze is here.
func TestSystemd_Settings(t *testing.T) {
	settings := map[string][]string{}
	for line := range strings.SplitSeq(readFile(t, unitPath), "\n") {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			settings[k] = append(settings[k], v)
		}
	}
	for k, want := range map[string]string{
		"DynamicUser":             "yes",
		"StateDirectory":          "lsnode",
		"ProtectSystem":           "strict",
		"ProtectHome":             "yes",
		"NoNewPrivileges":         "yes",
		"PrivateTmp":              "yes",
		"CapabilityBoundingSet":   "",
		"SystemCallArchitectures": "native",
		"KillSignal":              "SIGTERM",
	} {
		if got := settings[k]; !slices.Equal(got, []string{want}) {
			t.Errorf("%s=%q, want %q once", k, got, want)
		}
	}
	if got := settings["SystemCallFilter"]; !slices.Contains(got, "@system-service") {
		t.Errorf("SystemCallFilter=%q, want @system-service", got)
	}
	families := strings.Fields(strings.Join(settings["RestrictAddressFamilies"], " "))
	slices.Sort(families)
	if want := []string{"AF_INET", "AF_INET6", "AF_NETLINK", "AF_UNIX"}; !slices.Equal(families, want) {
		t.Errorf("RestrictAddressFamilies=%v, want %v", families, want)
	}
	// The settings, the token and the gossip key stay root-only in
	// /etc/lsnode and reach the service as credentials.
	creds := slices.Sorted(slices.Values(settings["LoadCredential"]))
	if want := []string{"gossip.key:/etc/lsnode/gossip.key", "lsnode.yaml:/etc/lsnode/lsnode.yaml", "token:/etc/lsnode/token"}; !slices.Equal(creds, want) {
		t.Errorf("LoadCredential=%q, want %q", creds, want)
	}
	if env := settings["EnvironmentFile"]; env != nil {
		t.Errorf("EnvironmentFile=%q: the settings are in the configuration file", env)
	}
	exec := strings.Join(settings["ExecStart"], "")
	args := strings.Fields(exec)
	for _, want := range []string{"--config=${CREDENTIALS_DIRECTORY}/lsnode.yaml", "--data=${STATE_DIRECTORY}",
		"--token-file=${CREDENTIALS_DIRECTORY}/token", "--gossip-key-file=${CREDENTIALS_DIRECTORY}/gossip.key"} {
		if !slices.Contains(args, want) {
			t.Errorf("ExecStart=%q lacks %s", exec, want)
		}
	}
	serve := serveSettings(t, args, map[string]string{
		"${CREDENTIALS_DIRECTORY}/lsnode.yaml": readFile(t, "systemd/lsnode.yaml.example"),
	})
	for _, flag := range []string{"http", "grpc", "gossip", "cluster-id", "name", "join", "token-file"} {
		if serve[flag] == "" {
			t.Errorf("neither ExecStart nor systemd/lsnode.yaml.example sets --%s", flag)
		}
	}
}
