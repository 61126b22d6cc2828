package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fakeEnv is an environment of the given variables only.
func fakeEnv(vars map[string]string) environ {
	return func(name string) string { return vars[name] }
}

// writeConfig writes a configuration file into a temp dir.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lsnode.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serveWith parses args as serve does, in env, and returns the flags and
// what their check says of the file and the variables.
func serveWith(t *testing.T, env environ, args ...string) (*flagSet, *serveFlags, error) {
	t.Helper()
	fs := newFlagSet("serve", io.Discard, io.Discard)
	f, err := serveFlagsOf(fs, args, env)
	if err != nil {
		return fs, nil, err
	}
	return fs, f, f.env.err()
}

// TestConfigFile_Precedence: a flag given on the command line beats its
// variable, which beats the file, which beats the default, for every kind
// of flag.
func TestConfigFile_Precedence(t *testing.T) {
	file := writeConfig(t, `
http:
  http: 127.0.0.1:1001
  http-write-timeout: 11s
mcp:
  read-only: true
replication:
  peer: [10.0.0.1:8766, 10.0.0.2:8766]
security:
  token-file: /from/file
limits:
  max-request-bytes: 1001
`)
	type source struct{ flag, env, file bool }
	for _, tc := range []struct {
		flag, envVar                  string
		flagValue, envValue, fileWant string
		defWant                       string
	}{
		{"http", "LSNODE_HTTP", "127.0.0.1:1003", "127.0.0.1:1002", "127.0.0.1:1001", "127.0.0.1:8765"},
		{"http-write-timeout", "LSNODE_HTTP_WRITE_TIMEOUT", "13s", "12s", "11s", "1m0s"},
		{"max-request-bytes", "LSNODE_MAX_REQUEST_BYTES", "1003", "1002", "1001", "16777216"},
		{"read-only", "LSNODE_READ_ONLY", "false", "0", "true", "false"},
		{"peer", "LSNODE_PEERS", "10.0.0.9:8766", "10.0.0.5:8766", "10.0.0.1:8766,10.0.0.2:8766", ""},
		{"token-file", "LSNODE_TOKEN_FILE", "/from/flag", "/from/env", "/from/file", ""},
	} {
		for _, src := range []source{{true, true, true}, {false, true, true}, {false, false, true}, {false, false, false}, {true, false, true}, {false, true, false}} {
			var args []string
			env := map[string]string{}
			if src.flag {
				args = append(args, "--"+tc.flag+"="+tc.flagValue)
			}
			if src.env {
				env[tc.envVar] = tc.envValue
			}
			if src.file {
				args = append(args, "--config", file)
			}
			want := tc.defWant
			switch {
			case src.flag && tc.flag == "peer" && src.env:
				want = tc.envValue + "," + tc.flagValue // --peer adds to LSNODE_PEERS, as before files
			case src.flag:
				want = tc.flagValue
			case src.env && tc.flag == "read-only":
				want = "false" // "0" is not truthy
			case src.env:
				want = tc.envValue
			case src.file:
				want = tc.fileWant
			}
			fs, _, err := serveWith(t, fakeEnv(env), args...)
			if err != nil {
				t.Fatalf("--%s %+v: %v", tc.flag, src, err)
			}
			if got := fs.Lookup(tc.flag).Value.String(); got != want {
				t.Errorf("--%s from flag %v, env %v, file %v: %q, want %q", tc.flag, src.flag, src.env, src.file, got, want)
			}
		}
	}
}

// TestConfigFile_TokenVariableBeatsTokenFile: a token in the environment
// beats the file's token file, as the environment beats the file.
func TestConfigFile_TokenVariableBeatsTokenFile(t *testing.T) {
	file := writeConfig(t, "security:\n  token-file: /from/file\n")
	fs, f, err := serveWith(t, fakeEnv(map[string]string{"LSNODE_TOKEN": "from-env"}), "--config="+file)
	if err != nil {
		t.Fatal(err)
	}
	if got := fs.Lookup("token-file").Value.String(); got != "" {
		t.Fatalf("--token-file %q, want none: LSNODE_TOKEN is set", got)
	}
	if tok, from, err := resolveToken(f.env.env, *f.tokenFile); err != nil || tok != "from-env" || from != "LSNODE_TOKEN" {
		t.Fatalf("token %q from %q (%v), want LSNODE_TOKEN's", tok, from, err)
	}
}

// TestConfigFile_EverySetting: every flag of serve but --config can be set
// from the file, under its group; a new flag that does not read the file
// fails here (its key would be unknown).
func TestConfigFile_EverySetting(t *testing.T) {
	probe := flag.NewFlagSet("serve", flag.ContinueOnError)
	addServeFlags(probe, noEnv, nil)
	want := map[string]string{}
	var body strings.Builder
	for _, g := range serveFlagGroups {
		fmt.Fprintf(&body, "%s:\n", groupKey(g))
		for _, name := range g.flags {
			if name == "config" {
				continue
			}
			value, shown := sampleSetting(t, probe.Lookup(name))
			if shown == probe.Lookup(name).DefValue {
				t.Fatalf("--%s: the sample %s is its default; it would prove nothing", name, value)
			}
			fmt.Fprintf(&body, "  %s: %s\n", name, value)
			want[name] = shown
		}
	}
	fs, _, err := serveWith(t, noEnv, "--config", writeConfig(t, body.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, body.String())
	}
	probe.VisitAll(func(fl *flag.Flag) {
		if fl.Name == "config" {
			return
		}
		if got := fs.Lookup(fl.Name).Value.String(); got != want[fl.Name] {
			t.Errorf("--%s = %q from the file, want %q", fl.Name, got, want[fl.Name])
		}
	})
}

// sampleSetting is a value of fl's type that is not its default, as the
// file writes it and as the flag shows it.
func sampleSetting(t *testing.T, fl *flag.Flag) (file, shown string) {
	t.Helper()
	switch v := fl.Value.(type) {
	case *durationValue:
		return "7s", "7s"
	case *stringList:
		return "[10.0.0.7:8766, 10.0.0.8:8766]", "10.0.0.7:8766,10.0.0.8:8766"
	case interface{ IsBoolFlag() bool }:
		if v.IsBoolFlag() {
			if fl.DefValue == "true" { // a switch that is on by default
				return "false", "false"
			}
			return "true", "true"
		}
	}
	kind, _ := flag.UnquoteUsage(fl)
	if tn, ok := fl.Value.(typeNamer); ok {
		kind = tn.typeName()
	}
	switch kind {
	case "int":
		return "7", "7"
	case "string":
		return "from-file", "from-file"
	}
	t.Fatalf("--%s: no sample for its type %T", fl.Name, fl.Value)
	return "", ""
}

// TestConfigFile_Refused: what is wrong in a file is refused with the key,
// its line and what was wanted; nothing else is reported.
func TestConfigFile_Refused(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"unknown key", "http:\n  http: 127.0.0.1:1\n  htp-write-timeout: 3s\n",
			[]string{":3: unknown key http.htp-write-timeout; did you mean http.http-write-timeout?"}},
		{"key of another group", "\nhttp:\n  data: /var/lib/lsnode\n",
			[]string{":3: unknown key http.data: data is a setting of storage"}},
		{"unknown group", "storage:\n  data: /d\nstorge:\n  sync-full: true\n",
			[]string{":3: unknown key storge: want a group of `lsnode serve -h`"}},
		{"integer", "limits:\n  max-request-bytes: 16MiB\n",
			[]string{`:2: limits.max-request-bytes: want an integer, got "16MiB"`}},
		{"boolean", "storage:\n  sync-full: yes\n",
			[]string{`:2: storage.sync-full: want true or false, got "yes"`}},
		{"string", "storage:\n  data: {dir: /d}\n",
			[]string{":2: storage.data: want a string"}},
		{"list", "replication:\n  peer: {a: b}\n",
			[]string{":2: replication.peer: want a list of strings or a comma-separated string"}},
		{"duration without a unit", "limits:\n  grpc-handshake-timeout: 10\n",
			[]string{`:2: limits.grpc-handshake-timeout: want a duration with a unit, such as 10s or 10ms, got "10"`}},
		{"duration", "http:\n  http-idle-timeout: soon\n",
			[]string{`:2: http.http-idle-timeout: want a duration with a unit, such as 30s or 5m, got "soon"`}},
		{"empty duration", "http:\n  http-idle-timeout:\n",
			[]string{":2: http.http-idle-timeout: want a duration with a unit, such as 30s or 5m"}},
		{"given twice", "http:\n  http: a:1\n  http: b:2\n",
			[]string{":3: http.http is given twice (first at line 2)"}},
		{"group given twice", "http:\n  http: a:1\nhttp:\n  http-idle-timeout: 1s\n",
			[]string{":3: http is given twice (first at line 1)"}},
		{"not a mapping", "- http\n", []string{":1: want a mapping of the groups of `lsnode serve -h`"}},
		{"group not a mapping", "storage: /data\n", []string{":1: storage: want a mapping of its settings"}},
		{"two documents", "http:\n  http: a:1\n---\nhttp: {}\n", []string{":3: want one YAML document"}},
		{"syntax", "http:\n\thttp: a\n", []string{":2: found character that cannot start any token"}},
		{"--config in the file", "general:\n  config: other.yaml\n",
			[]string{":2: unknown key general.config: --config names the file; it is not a setting of it"}},
		{"every problem, by line", "limits:\n  max-header-bytes: big\nhttp:\n  bogus: 1\n",
			[]string{`:2: limits.max-header-bytes: want an integer, got "big"`, ":4: unknown key http.bogus"}},
	} {
		path := writeConfig(t, tc.body)
		_, _, err := serveWith(t, noEnv, "--config", path)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != len(tc.want) {
			t.Errorf("%s: %d problems, want %d:\n%v", tc.name, len(lines), len(tc.want), err)
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(lines[i], path+w) {
				t.Errorf("%s: %q, want %q", tc.name, lines[i], path+w)
			}
		}
	}
}

// TestConfigFile_Values: values of every kind reach the node configuration
// as the flags' do, aliases and comments included.
func TestConfigFile_Values(t *testing.T) {
	path := writeConfig(t, `# a node of a mesh
storage:
  data: /var/lib/lsnode
  read-cache-mb: 0        # off
http:
  http: &bind 127.0.0.1:18765
  extra-allowed-hosts: [lsnode.example, "lsnode.example:443"]
replication:
  grpc: 127.0.0.1:18766
  peer: 10.0.0.2:8766,10.0.0.3:8766
membership:
  gossip: 127.0.0.1:17946
  join: [10.0.0.2:7946]
security:
  unsigned-origins: refuse
`)
	_, f, err := serveWith(t, noEnv, "--config="+path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != "/var/lib/lsnode" || cfg.Store.TailCacheBytes != -1 || cfg.HTTP.Addr != "127.0.0.1:18765" ||
		!slices.Equal(cfg.HTTP.ExtraAllowedHosts, []string{"lsnode.example", "lsnode.example:443"}) ||
		!slices.Equal(cfg.Replication.Peers, []string{"10.0.0.2:8766", "10.0.0.3:8766"}) ||
		!slices.Equal(cfg.Membership.Join, []string{"10.0.0.2:7946"}) || cfg.Integrity.Policy.String() != "refuse" {
		t.Fatalf("config from the file: %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestConfigArg: --config is found before the flags are defined, in each
// of its spellings; a scan the flags contradict is refused.
func TestConfigArg(t *testing.T) {
	for args, want := range map[string]string{
		"--config f.yaml":                "f.yaml",
		"-config=f.yaml":                 "f.yaml",
		"--http=x --config=a --config=b": "b",
		"--http x":                       "",
		"-- --config f.yaml":             "",
	} {
		if got := configArg(strings.Fields(args)); got != want {
			t.Errorf("configArg(%s) = %q, want %q", args, got, want)
		}
	}
	path := writeConfig(t, "")
	if _, _, err := serveWith(t, noEnv, "--name", "--config="+path); err == nil || !strings.Contains(err.Error(), "give it as --config=FILE") {
		t.Fatalf("--name --config=FILE (a name that looks like --config): %v", err)
	}
}

// TestConfigFile_OperationsFlagSections: every flag docs/operations.md's
// "Flags" tables name is accepted by the file under its section's group
// (the section title in lower case, "console" for the console flags), so
// a key copied from those tables works; and the tables name every flag of
// serve once.
func TestConfigFile_OperationsFlagSections(t *testing.T) {
	raw, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, flags, ok := strings.Cut(string(raw), "\n## Flags\n")
	flags, _, ok2 := strings.Cut(flags, "\n## ")
	if !ok || !ok2 {
		t.Fatal(`docs/operations.md has no "## Flags" section`)
	}
	probe := flag.NewFlagSet("serve", flag.ContinueOnError)
	addServeFlags(probe, noEnv, nil)
	named := map[string]int{}
	var body strings.Builder
	flagName := regexp.MustCompile("`--([a-z0-9-]+)")
	for _, section := range strings.Split(flags, "\n### ")[1:] {
		title, table, _ := strings.Cut(section, "\n")
		fmt.Fprintf(&body, "%s:\n", strings.TrimSuffix(strings.ToLower(title), " flags"))
		for _, row := range strings.Split(table, "\n") {
			first, _, _ := strings.Cut(strings.TrimPrefix(row, "| "), " |")
			if !strings.HasPrefix(row, "| `--") {
				continue
			}
			for _, m := range flagName.FindAllStringSubmatch(first, -1) {
				name := m[1]
				named[name]++
				fl := probe.Lookup(name)
				if fl == nil {
					t.Errorf("docs/operations.md section %q names --%s, which serve does not define", title, name)
					continue
				}
				if name != "config" {
					value, _ := sampleSetting(t, fl)
					fmt.Fprintf(&body, "  %s: %s\n", name, value)
				}
			}
		}
	}
	probe.VisitAll(func(fl *flag.Flag) {
		if named[fl.Name] != 1 {
			t.Errorf("docs/operations.md's flag tables name --%s %d times, want once", fl.Name, named[fl.Name])
		}
	})
	if _, _, err := serveWith(t, noEnv, "--config", writeConfig(t, body.String())); err != nil {
		t.Fatalf("the file built from docs/operations.md's flag sections is refused:\n%v", err)
	}
}
