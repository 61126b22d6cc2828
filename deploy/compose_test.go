package deploy

import (
	"encoding/base64"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The image (Dockerfile) and the compose cluster, checked offline. The
// images are built and the cluster is run by e2e/docker_cluster_test.go.

// dockerfileLines returns the instructions of the Dockerfile, comments
// dropped and continued lines joined.
func dockerfileLines(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	for line := range strings.SplitSeq(readFile(t, path), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if s, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(trimmed)
		out = append(out, cur.String())
		cur.Reset()
	}
	return out
}

// dockerfileDirective returns the argument of the last instruction named
// dir of deploy/Dockerfile.
func dockerfileDirective(t *testing.T, dir string) string {
	t.Helper()
	var arg string
	for _, l := range dockerfileLines(t, "Dockerfile") {
		if name, rest, _ := strings.Cut(l, " "); strings.EqualFold(name, dir) {
			arg = strings.TrimSpace(rest)
		}
	}
	return arg
}

// dockerfileExposed returns the image's EXPOSE ports as sorted "port/proto".
func dockerfileExposed(t *testing.T) []string {
	t.Helper()
	var ports []string
	for _, l := range dockerfileLines(t, "Dockerfile") {
		name, rest, _ := strings.Cut(l, " ")
		if !strings.EqualFold(name, "EXPOSE") {
			continue
		}
		for _, p := range strings.Fields(rest) {
			if !strings.Contains(p, "/") {
				p += "/tcp"
			}
			ports = append(ports, strings.ToLower(p))
		}
	}
	slices.Sort(ports)
	return ports
}

func TestDockerfile_Contract(t *testing.T) {
	lines := dockerfileLines(t, "Dockerfile")
	if len(lines) == 0 || lines[0] != "FROM scratch" {
		t.Errorf("first instruction %q, want FROM scratch (no image can be pulled)", lines[0])
	}
	for _, l := range lines {
		if name, _, _ := strings.Cut(l, " "); slices.Contains([]string{"RUN", "HEALTHCHECK", "ADD"}, strings.ToUpper(name)) {
			t.Errorf("%q: scratch has no shell to run it (and ADD may fetch)", l)
		}
	}
	checks := map[string]string{
		"USER":       "65532:65532",
		"ENTRYPOINT": `["/lsnode", "serve"]`,
		"CMD":        `["--data", "/data", "--http", "0.0.0.0:8765", "--grpc", "0.0.0.0:8766", "--gossip", "0.0.0.0:7946"]`,
		"VOLUME":     `["/data"]`,
		"WORKDIR":    "/data",
	}
	for dir, want := range checks {
		if got := dockerfileDirective(t, dir); got != want {
			t.Errorf("%s %s, want %s", dir, got, want)
		}
	}
	if got, want := dockerfileExposed(t), []string{"7946/tcp", "7946/udp", "8765/tcp", "8766/tcp"}; !slices.Equal(got, want) {
		t.Errorf("EXPOSE %v, want %v", got, want)
	}
	for _, want := range []string{
		"COPY --chown=65532:65532 deploy/docker/rootfs/data/ /data/",
		"COPY --chown=65532:65532 deploy/docker/rootfs/tmp/ /tmp/",
		"COPY bin/lsnode /lsnode",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("missing %q", want)
		}
	}
	passwd := readFile(t, "docker/rootfs/etc/passwd")
	if !strings.Contains(passwd, ":x:65532:65532:") {
		t.Errorf("docker/rootfs/etc/passwd has no uid 65532:\n%s", passwd)
	}
}

// compose is the part of compose.yaml this test reads.
type compose struct {
	XLsnode  any                       `yaml:"x-lsnode"`
	Services map[string]composeService `yaml:"services"`
	Secrets  map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
	Networks map[string]any `yaml:"networks"`
	Volumes  map[string]any `yaml:"volumes"`
}

type composeService struct {
	Image           string   `yaml:"image"`
	Hostname        string   `yaml:"hostname"`
	Command         []string `yaml:"command"`
	Ports           []string `yaml:"ports"`
	Volumes         []string `yaml:"volumes"`
	Secrets         []string `yaml:"secrets"`
	Networks        []string `yaml:"networks"`
	DependsOn       []string `yaml:"depends_on"`
	Restart         string   `yaml:"restart"`
	StopGracePeriod string   `yaml:"stop_grace_period"`
}

// composeMounts are the files of a service's bind mounts from deploy/
// ("./compose/x:/in/container[:ro]"), by their path in the container.
func composeMounts(t *testing.T, volumes []string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && strings.HasPrefix(parts[0], "./") {
			files[parts[1]] = readFile(t, parts[0])
		}
	}
	return files
}

var composeNodes = []struct{ name, hostPort string }{
	{"node1", "18765"}, {"node2", "18766"}, {"node3", "18767"},
}

func TestCompose_Nodes(t *testing.T) {
	var c compose
	decodeYAMLFile(t, "compose.yaml", &c, true)
	if len(c.Services) != len(composeNodes)+1 {
		t.Errorf("services %d, want three nodes and prometheus", len(c.Services))
	}
	for _, n := range composeNodes {
		s, ok := c.Services[n.name]
		if !ok {
			t.Errorf("no service %s", n.name)
			continue
		}
		if s.Image != "${LSNODE_IMAGE:-lsnode:dev}" || s.Hostname != n.name {
			t.Errorf("%s: image %q hostname %q", n.name, s.Image, s.Hostname)
		}
		want := map[string]string{
			"data":            "/data",
			"http":            "0.0.0.0:8765",
			"grpc":            "0.0.0.0:8766",
			"gossip":          "0.0.0.0:7946",
			"name":            n.name,
			"token-file":      "/run/secrets/lsnode_token",
			"gossip-key-file": "/run/secrets/lsnode_gossip_key",
			"cluster-id":      "lsnode-compose",
		}
		if n.name != "node1" {
			want["join"] = "node1:7946"
		}
		settings := serveSettings(t, s.Command, composeMounts(t, s.Volumes))
		for flag, v := range want {
			if got := settings[flag]; got != v {
				t.Errorf("%s: --%s=%q, want %q", n.name, flag, got, v)
			}
		}
		for flag, v := range settings {
			if _, ok := want[flag]; !ok {
				t.Errorf("%s: unexpected setting --%s=%q", n.name, flag, v)
			}
		}
		// Only what differs between the nodes is on their command lines.
		for _, a := range s.Command {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if name != "config" && name != "name" && name != "join" {
				t.Errorf("%s: argument %q belongs in compose/lsnode.yaml", n.name, a)
			}
		}
		if !slices.Equal(s.Ports, []string{"127.0.0.1:" + n.hostPort + ":8765"}) {
			t.Errorf("%s: ports %v, want 127.0.0.1:%s:8765 only", n.name, s.Ports, n.hostPort)
		}
		if !slices.Equal(s.Volumes, []string{n.name + "-data:/data", "./compose/lsnode.yaml:/etc/lsnode/lsnode.yaml:ro"}) {
			t.Errorf("%s: volumes %v", n.name, s.Volumes)
		}
		for _, sec := range []string{"lsnode_token", "lsnode_gossip_key"} {
			if !slices.Contains(s.Secrets, sec) {
				t.Errorf("%s: secret %s not mounted", n.name, sec)
			}
		}
	}
	p := c.Services["prometheus"]
	if p.Image != "${LSNODE_PROMETHEUS_IMAGE:-lsnode-prometheus:dev}" || !slices.Equal(p.Ports, []string{"127.0.0.1:19090:9090"}) ||
		!slices.Contains(p.Secrets, "lsnode_token") {
		t.Errorf("prometheus: image %q ports %v secrets %v", p.Image, p.Ports, p.Secrets)
	}
}

// TestCompose_Secrets checks the demo token and gossip key: what the node
// and Prometheus read from /run/secrets.
func TestCompose_Secrets(t *testing.T) {
	var c compose
	decodeYAMLFile(t, "compose.yaml", &c, true)
	if c.Secrets["lsnode_token"].File != "compose/token" || c.Secrets["lsnode_gossip_key"].File != "compose/gossip.key" {
		t.Fatalf("secrets %v", c.Secrets)
	}
	token := readFile(t, "compose/token")
	if len(token) < 32 || strings.TrimSpace(token) != token {
		t.Errorf("compose/token: %d bytes, surrounding white space %v; want 32 or more and none", len(token), strings.TrimSpace(token) != token)
	}
	var keys int
	for line := range strings.SplitSeq(readFile(t, "compose/gossip.key"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := base64.StdEncoding.DecodeString(line)
		if err != nil || (len(k) != 16 && len(k) != 24 && len(k) != 32) {
			t.Errorf("compose/gossip.key: %q is not base64 of 16, 24 or 32 bytes (%v)", line, err)
		}
		keys++
	}
	if keys == 0 {
		t.Error("compose/gossip.key holds no key")
	}
}

// TestCompose_ScrapeTargets checks that the compose Prometheus scrapes
// every node, labelled by its name, with the token compose mounts.
func TestCompose_ScrapeTargets(t *testing.T) {
	var cfg struct {
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			Authorization struct {
				CredentialsFile string `yaml:"credentials_file"`
			} `yaml:"authorization"`
			StaticConfigs []struct {
				Targets []string          `yaml:"targets"`
				Labels  map[string]string `yaml:"labels"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	decodeYAMLFile(t, "prometheus/prometheus.yml", &cfg, false)
	var got, want []string
	for _, sc := range cfg.ScrapeConfigs {
		if sc.JobName != "lsnode" {
			continue
		}
		if sc.Authorization.CredentialsFile != "/run/secrets/lsnode_token" {
			t.Errorf("job lsnode reads the token from %q", sc.Authorization.CredentialsFile)
		}
		for _, s := range sc.StaticConfigs {
			for _, tg := range s.Targets {
				got = append(got, fmt.Sprintf("%s node=%s", tg, s.Labels["node"]))
			}
		}
	}
	for _, n := range composeNodes {
		want = append(want, fmt.Sprintf("%s:8765 node=%s", n.name, n.name))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("job lsnode scrapes %v, want %v", got, want)
	}
}

// TestCompose_Config asks Compose itself to validate compose.yaml (no
// engine needed). Either the v2 plugin or docker-compose 1.x will do.
func TestCompose_Config(t *testing.T) {
	var cmd []string
	if _, err := run(t, ".", "docker", "compose", "version"); err == nil {
		cmd = []string{"docker", "compose"}
	} else if p, err := exec.LookPath("docker-compose"); err == nil {
		cmd = []string{p}
	} else {
		t.Skip("SKIPPED: neither docker compose nor docker-compose is installed, so Compose's own validation of compose.yaml is NOT run")
	}
	out := mustRun(t, ".", cmd[0], append(cmd[1:], "-f", "compose.yaml", "config", "-q")...)
	if strings.TrimSpace(out) != "" {
		t.Errorf("%s config -q said:\n%s", strings.Join(cmd, " "), out)
	}
}
