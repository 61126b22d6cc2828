package deploy

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The Kubernetes manifests are decoded strictly into the subset of the API
// types they use (a misspelt or misplaced field fails), then checked
// against each other, the image and the node. kubeconform would check them
// against the real OpenAPI schemas, but it downloads those at run time and
// nothing can be downloaded here; see deploy/README.md.

type objectMeta struct {
	Name        string            `yaml:"name"`
	Namespace   string            `yaml:"namespace"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

type labelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

// intOrString is a Kubernetes IntOrString, kept as written.
type intOrString string

func (v *intOrString) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number or a name", n.Line)
	}
	*v = intOrString(n.Value)
	return nil
}

type statefulSet struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		ServiceName         string `yaml:"serviceName"`
		Replicas            int    `yaml:"replicas"`
		PodManagementPolicy string `yaml:"podManagementPolicy"`
		UpdateStrategy      struct {
			Type string `yaml:"type"`
		} `yaml:"updateStrategy"`
		Selector labelSelector `yaml:"selector"`
		Template struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     podSpec    `yaml:"spec"`
		} `yaml:"template"`
		VolumeClaimTemplates []struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     struct {
				AccessModes []string `yaml:"accessModes"`
				Resources   struct {
					Requests map[string]string `yaml:"requests"`
				} `yaml:"resources"`
			} `yaml:"spec"`
		} `yaml:"volumeClaimTemplates"`
	} `yaml:"spec"`
}

type podSpec struct {
	TerminationGracePeriodSeconds int   `yaml:"terminationGracePeriodSeconds"`
	AutomountServiceAccountToken  *bool `yaml:"automountServiceAccountToken"`
	EnableServiceLinks            *bool `yaml:"enableServiceLinks"`
	SecurityContext               struct {
		RunAsNonRoot        *bool  `yaml:"runAsNonRoot"`
		RunAsUser           int    `yaml:"runAsUser"`
		RunAsGroup          int    `yaml:"runAsGroup"`
		FSGroup             int    `yaml:"fsGroup"`
		FSGroupChangePolicy string `yaml:"fsGroupChangePolicy"`
		SeccompProfile      struct {
			Type string `yaml:"type"`
		} `yaml:"seccompProfile"`
	} `yaml:"securityContext"`
	Containers []container `yaml:"containers"`
	Volumes    []struct {
		Name     string `yaml:"name"`
		EmptyDir *struct {
			SizeLimit string `yaml:"sizeLimit"`
		} `yaml:"emptyDir"`
		Secret *struct {
			SecretName  string `yaml:"secretName"`
			DefaultMode int    `yaml:"defaultMode"`
			Items       []struct {
				Key  string `yaml:"key"`
				Path string `yaml:"path"`
			} `yaml:"items"`
		} `yaml:"secret"`
		ConfigMap *struct {
			Name  string `yaml:"name"`
			Items []struct {
				Key  string `yaml:"key"`
				Path string `yaml:"path"`
			} `yaml:"items"`
		} `yaml:"configMap"`
	} `yaml:"volumes"`
}

type container struct {
	Name            string   `yaml:"name"`
	Image           string   `yaml:"image"`
	ImagePullPolicy string   `yaml:"imagePullPolicy"`
	Args            []string `yaml:"args"`
	Env             []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
		Protocol      string `yaml:"protocol"`
	} `yaml:"ports"`
	StartupProbe   *probe `yaml:"startupProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
			Add  []string `yaml:"add"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

type probe struct {
	HTTPGet *struct {
		Path string      `yaml:"path"`
		Port intOrString `yaml:"port"`
	} `yaml:"httpGet"`
	PeriodSeconds    int `yaml:"periodSeconds"`
	TimeoutSeconds   int `yaml:"timeoutSeconds"`
	FailureThreshold int `yaml:"failureThreshold"`
}

type service struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		Type                     string            `yaml:"type"`
		ClusterIP                string            `yaml:"clusterIP"`
		PublishNotReadyAddresses bool              `yaml:"publishNotReadyAddresses"`
		Selector                 map[string]string `yaml:"selector"`
		Ports                    []struct {
			Name       string      `yaml:"name"`
			Port       int         `yaml:"port"`
			TargetPort intOrString `yaml:"targetPort"`
			Protocol   string      `yaml:"protocol"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type podDisruptionBudget struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		MaxUnavailable intOrString   `yaml:"maxUnavailable"`
		MinAvailable   intOrString   `yaml:"minAvailable"`
		Selector       labelSelector `yaml:"selector"`
	} `yaml:"spec"`
}

type kustomization struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Namespace  string   `yaml:"namespace"`
	Resources  []string `yaml:"resources"`
}

type configMap struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   objectMeta        `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
}

type secret struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   objectMeta        `yaml:"metadata"`
	Type       string            `yaml:"type"`
	StringData map[string]string `yaml:"stringData"`
}

// manifests is every object of deploy/k8s/*.yaml.
type manifests struct {
	sts        statefulSet
	services   map[string]service
	pdb        podDisruptionBudget
	secret     secret
	configMaps map[string]configMap
	kust       kustomization
	files      map[string][]string // file -> kinds
}

func loadManifests(t *testing.T) manifests {
	t.Helper()
	m := manifests{services: map[string]service{}, configMaps: map[string]configMap{}, files: map[string][]string{}}
	paths, err := filepath.Glob("k8s/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no k8s/*.yaml: %v", err)
	}
	var nSTS, nPDB int
	for _, path := range paths {
		file := filepath.Base(path)
		dec := yaml.NewDecoder(strings.NewReader(readFile(t, path)))
		for i := 0; ; i++ {
			var node yaml.Node
			if err := dec.Decode(&node); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s document %d: %v", path, i, err)
			}
			var head struct {
				Kind string `yaml:"kind"`
			}
			if err := node.Decode(&head); err != nil {
				t.Fatalf("%s document %d: %v", path, i, err)
			}
			where := fmt.Sprintf("%s document %d (%s)", path, i, head.Kind)
			m.files[file] = append(m.files[file], head.Kind)
			switch head.Kind {
			case "StatefulSet":
				strictDecode(t, where, &node, &m.sts)
				nSTS++
			case "Service":
				var s service
				strictDecode(t, where, &node, &s)
				m.services[s.Metadata.Name] = s
			case "PodDisruptionBudget":
				strictDecode(t, where, &node, &m.pdb)
				nPDB++
			case "Secret":
				strictDecode(t, where, &node, &m.secret)
			case "ConfigMap":
				var cm configMap
				strictDecode(t, where, &node, &cm)
				m.configMaps[cm.Metadata.Name] = cm
			case "Kustomization":
				strictDecode(t, where, &node, &m.kust)
			default:
				t.Fatalf("%s: a kind this test does not know; teach it", where)
			}
		}
	}
	if nSTS != 1 || nPDB != 1 || len(m.services) != 2 {
		t.Fatalf("want one StatefulSet, one PodDisruptionBudget and two Services; got %d, %d, %d", nSTS, nPDB, len(m.services))
	}
	return m
}

// strictDecode decodes a YAML node into v, refusing unknown fields.
func strictDecode(t *testing.T, where string, n *yaml.Node, v any) {
	t.Helper()
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
}

func (m manifests) container(t *testing.T) container {
	t.Helper()
	cs := m.sts.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "lsnode" {
		t.Fatalf("want one container named lsnode, got %d", len(cs))
	}
	return cs[0]
}

// mountedFiles are the files the container's ConfigMap volumes hold, by
// their path in the container; a ConfigMap the manifests lack fails.
func (m manifests) mountedFiles(t *testing.T, c container) map[string]string {
	t.Helper()
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.Name] = vm.MountPath
	}
	files := map[string]string{}
	for _, v := range m.sts.Spec.Template.Spec.Volumes {
		if v.ConfigMap == nil || mounts[v.Name] == "" {
			continue
		}
		cm, ok := m.configMaps[v.ConfigMap.Name]
		if !ok {
			t.Fatalf("volume %s mounts ConfigMap %s, which no manifest defines", v.Name, v.ConfigMap.Name)
		}
		for _, it := range v.ConfigMap.Items {
			body, ok := cm.Data[it.Key]
			if !ok {
				t.Fatalf("volume %s projects key %s, which ConfigMap %s lacks", v.Name, it.Key, cm.Metadata.Name)
			}
			files[mounts[v.Name]+"/"+it.Path] = body
		}
	}
	return files
}

// flagValue returns the value of --name=value in args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestK8s_Kustomization(t *testing.T) {
	m := loadManifests(t)
	if m.kust.Kind != "Kustomization" {
		t.Fatal("k8s/kustomization.yaml is missing")
	}
	for file, kinds := range m.files {
		listed := slices.Contains(m.kust.Resources, file)
		switch {
		case file == "kustomization.yaml":
		case slices.Contains(kinds, "Secret"):
			if listed {
				t.Errorf("%s holds a Secret with placeholder values; kustomization.yaml must not apply it", file)
			}
		case !listed:
			t.Errorf("kustomization.yaml does not list %s (%v)", file, kinds)
		}
	}
	for _, r := range m.kust.Resources {
		if _, ok := m.files[r]; !ok {
			t.Errorf("kustomization.yaml lists %s, which does not exist", r)
		}
	}
}

func TestK8s_StatefulSetShape(t *testing.T) {
	m := loadManifests(t)
	s := m.sts.Spec
	if m.sts.APIVersion != "apps/v1" {
		t.Errorf("StatefulSet apiVersion %q", m.sts.APIVersion)
	}
	if s.Replicas != 3 {
		t.Errorf("replicas %d, want 3", s.Replicas)
	}
	if s.PodManagementPolicy != "Parallel" {
		t.Errorf("podManagementPolicy %q, want Parallel (peers; OrderedReady waits on readiness)", s.PodManagementPolicy)
	}
	headless, ok := m.services[s.ServiceName]
	if !ok {
		t.Fatalf("serviceName %q names no Service", s.ServiceName)
	}
	if headless.Spec.ClusterIP != "None" || !headless.Spec.PublishNotReadyAddresses {
		t.Errorf("service %s: clusterIP %q publishNotReadyAddresses %v, want None and true (seeds resolve before readiness)",
			s.ServiceName, headless.Spec.ClusterIP, headless.Spec.PublishNotReadyAddresses)
	}
	labels := s.Template.Metadata.Labels
	if len(s.Selector.MatchLabels) == 0 || !subset(s.Selector.MatchLabels, labels) {
		t.Errorf("StatefulSet selector %v does not match the pod labels %v", s.Selector.MatchLabels, labels)
	}
	if m.pdb.APIVersion != "policy/v1" || m.pdb.Spec.MaxUnavailable != "1" || m.pdb.Spec.MinAvailable != "" {
		t.Errorf("PodDisruptionBudget %s maxUnavailable %q minAvailable %q, want policy/v1 and maxUnavailable 1 alone",
			m.pdb.APIVersion, m.pdb.Spec.MaxUnavailable, m.pdb.Spec.MinAvailable)
	}
	if len(m.pdb.Spec.Selector.MatchLabels) == 0 || !subset(m.pdb.Spec.Selector.MatchLabels, labels) {
		t.Errorf("PodDisruptionBudget selector %v does not match the pod labels %v", m.pdb.Spec.Selector.MatchLabels, labels)
	}
	for name, svc := range m.services {
		if len(svc.Spec.Selector) == 0 || !subset(svc.Spec.Selector, labels) {
			t.Errorf("service %s selector %v does not match the pod labels %v", name, svc.Spec.Selector, labels)
		}
	}
}

// TestK8s_Ports checks the container ports against the image's EXPOSE, and
// that every Service port reaches one of them.
func TestK8s_Ports(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	byName := map[string]string{}
	var got []string
	for _, p := range c.Ports {
		pp := fmt.Sprintf("%d/%s", p.ContainerPort, strings.ToLower(p.Protocol))
		byName[p.Name] = pp
		got = append(got, pp)
	}
	want := dockerfileExposed(t)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("container ports %v, want the image's EXPOSE %v", got, want)
	}
	for _, want := range []struct{ name, port string }{{"http", "8765/tcp"}, {"grpc", "8766/tcp"}} {
		if byName[want.name] != want.port {
			t.Errorf("container port %s is %q, want %s", want.name, byName[want.name], want.port)
		}
	}
	for name, svc := range m.services {
		for _, p := range svc.Spec.Ports {
			target := string(p.TargetPort)
			if target == "" {
				target = strconv.Itoa(p.Port)
			}
			pp, ok := byName[target]
			if !ok {
				pp = target + "/" + strings.ToLower(p.Protocol)
			}
			if !slices.Contains(got, pp) || !strings.HasSuffix(pp, "/"+strings.ToLower(p.Protocol)) || !strings.HasPrefix(pp, strconv.Itoa(p.Port)+"/") {
				t.Errorf("service %s port %s (%d/%s -> %s) reaches no container port of that number and protocol", name, p.Name, p.Port, p.Protocol, target)
			}
		}
	}
	headless := m.services[m.sts.Spec.ServiceName]
	var hp []string
	for _, p := range headless.Spec.Ports {
		hp = append(hp, fmt.Sprintf("%d/%s", p.Port, strings.ToLower(p.Protocol)))
	}
	for _, want := range []string{"7946/tcp", "7946/udp", "8766/tcp"} {
		if !slices.Contains(hp, want) {
			t.Errorf("headless service lacks %s (gossip and replication between pods)", want)
		}
	}
}

func TestK8s_Probes(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, tc := range []struct {
		what  string
		probe *probe
		path  string
	}{
		{"livenessProbe", c.LivenessProbe, "/healthz"},
		{"readinessProbe", c.ReadinessProbe, "/readyz"},
		{"startupProbe", c.StartupProbe, "/healthz"},
	} {
		if tc.probe == nil || tc.probe.HTTPGet == nil {
			t.Errorf("%s: want an httpGet probe", tc.what)
			continue
		}
		port, err := strconv.Atoi(string(tc.probe.HTTPGet.Port))
		if err != nil {
			port = ports[string(tc.probe.HTTPGet.Port)]
		}
		if tc.probe.HTTPGet.Path != tc.path || port != 8765 {
			t.Errorf("%s: GET %s on port %q (%d), want %s on 8765", tc.what, tc.probe.HTTPGet.Path, tc.probe.HTTPGet.Port, port, tc.path)
		}
	}
}

// TestK8s_Args checks the serve settings, of the args and of the
// ConfigMap's file they name: the data dir is the mounted volume, the name
// and advertised address come from the downward API, the seeds are the
// headless Service's per-pod names, and every $(VAR) is declared
// (Kubernetes leaves an undeclared one as it is, and expands none in a
// file: what needs one stays in the args).
func TestK8s_Args(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			env[e.Name] = "fieldRef:" + e.ValueFrom.FieldRef.FieldPath
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			env[e.Name] = "secret:" + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		default:
			env[e.Name] = e.Value
		}
	}
	for name, want := range map[string]string{
		"POD_NAME":      "fieldRef:metadata.name",
		"POD_NAMESPACE": "fieldRef:metadata.namespace",
		"POD_IP":        "fieldRef:status.podIP",
	} {
		if env[name] != want {
			t.Errorf("env %s = %q, want %s", name, env[name], want)
		}
	}
	ref := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	for _, a := range c.Args {
		for _, v := range ref.FindAllStringSubmatch(a, -1) {
			if _, ok := env[v[1]]; !ok {
				t.Errorf("arg %q refers to $(%s), which the container does not declare", a, v[1])
			}
		}
	}
	settings := serveSettings(t, c.Args, m.mountedFiles(t, c))
	want := map[string]string{
		"data":      "/data",
		"http":      "0.0.0.0:8765",
		"grpc":      "0.0.0.0:8766",
		"gossip":    "0.0.0.0:7946",
		"name":      "$(POD_NAME)",
		"advertise": "$(POD_IP):7946",
	}
	for name, v := range want {
		if got := settings[name]; got != v {
			t.Errorf("--%s=%q, want %q", name, got, v)
		}
	}
	for name, v := range settings {
		if _, inArgs := flagValue(c.Args, name); !inArgs && ref.MatchString(v) {
			t.Errorf("--%s=%q of the configuration file refers to a variable, which only args expand", name, v)
		}
	}
	if settings["cluster-id"] == "" {
		t.Error("no --cluster-id")
	}
	join := settings["join"]
	var seeds []string
	for i := range m.sts.Spec.Replicas {
		seeds = append(seeds, fmt.Sprintf("%s-%d.%s.$(POD_NAMESPACE).svc.cluster.local:7946", m.sts.Metadata.Name, i, m.sts.Spec.ServiceName))
	}
	if join != strings.Join(seeds, ",") {
		t.Errorf("--join=%q, want every replica's headless name:\n%s", join, strings.Join(seeds, ","))
	}
}

// TestK8s_Volumes checks /data on the claim template, a writable /tmp (the
// root file system is read-only), and the gossip key file inside the
// mounted Secret.
func TestK8s_Volumes(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.MountPath] = vm.Name
	}
	claims := map[string]bool{}
	for _, vct := range m.sts.Spec.VolumeClaimTemplates {
		claims[vct.Metadata.Name] = true
		if vct.Spec.Resources.Requests["storage"] == "" || !slices.Contains(vct.Spec.AccessModes, "ReadWriteOnce") {
			t.Errorf("volumeClaimTemplate %s: want ReadWriteOnce and a storage request", vct.Metadata.Name)
		}
	}
	if data := mounts["/data"]; !claims[data] {
		t.Errorf("/data is mounted from %q, want a volumeClaimTemplate (%v)", data, claims)
	}
	settings := serveSettings(t, c.Args, m.mountedFiles(t, c))
	if d := settings["data"]; d != "/data" {
		t.Errorf("--data=%q is not the mounted /data", d)
	}
	volumes := map[string]int{}
	for i, v := range m.sts.Spec.Template.Spec.Volumes {
		volumes[v.Name] = i
	}
	tmp, ok := volumes[mounts["/tmp"]]
	if !ok || m.sts.Spec.Template.Spec.Volumes[tmp].EmptyDir == nil {
		t.Errorf("/tmp is not an emptyDir volume (TMPDIR of the image, read-only root file system)")
	}
	// The token and the gossip key are files of the mounted Secret.
	var sec *struct {
		SecretName  string `yaml:"secretName"`
		DefaultMode int    `yaml:"defaultMode"`
		Items       []struct {
			Key  string `yaml:"key"`
			Path string `yaml:"path"`
		} `yaml:"items"`
	}
	for _, f := range []struct{ flag, key string }{{"token-file", "token"}, {"gossip-key-file", "gossip.key"}} {
		path := settings[f.flag]
		dir, file := filepath.Split(path)
		i, ok := volumes[mounts[strings.TrimSuffix(dir, "/")]]
		if !ok || m.sts.Spec.Template.Spec.Volumes[i].Secret == nil {
			t.Fatalf("--%s=%q is not in a mounted Secret volume", f.flag, path)
		}
		sec = m.sts.Spec.Template.Spec.Volumes[i].Secret
		if !slices.ContainsFunc(sec.Items, func(it struct {
			Key  string `yaml:"key"`
			Path string `yaml:"path"`
		}) bool {
			return it.Path == file && it.Key == f.key
		}) {
			t.Errorf("secret volume %s does not project its key %s as %s (--%s)", sec.SecretName, f.key, file, f.flag)
		}
	}
	if m.secret.Kind == "Secret" {
		for _, it := range sec.Items {
			if _, ok := m.secret.StringData[it.Key]; !ok || m.secret.Metadata.Name != sec.SecretName {
				t.Errorf("secret.example.yaml (%s) lacks key %s of secret %s", m.secret.Metadata.Name, it.Key, sec.SecretName)
			}
		}
		if _, ok := m.secret.StringData["token"]; !ok {
			t.Error("secret.example.yaml lacks the token key")
		}
	}
}

// TestK8s_Security checks the pod and container security contexts, and
// that the pod runs as the image's user.
func TestK8s_Security(t *testing.T) {
	m := loadManifests(t)
	c := m.container(t)
	pod := m.sts.Spec.Template.Spec.SecurityContext
	sc := c.SecurityContext
	isTrue := func(b *bool) bool { return b != nil && *b }
	if !isTrue(pod.RunAsNonRoot) || !isTrue(sc.RunAsNonRoot) {
		t.Error("runAsNonRoot must be true on the pod and the container")
	}
	if !isTrue(sc.ReadOnlyRootFilesystem) {
		t.Error("readOnlyRootFilesystem must be true")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("allowPrivilegeEscalation must be false")
	}
	if !slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) || len(sc.Capabilities.Add) > 0 {
		t.Errorf("capabilities drop %v add %v, want drop [ALL] and nothing added", sc.Capabilities.Drop, sc.Capabilities.Add)
	}
	if pod.SeccompProfile.Type != "RuntimeDefault" {
		t.Errorf("seccompProfile %q, want RuntimeDefault", pod.SeccompProfile.Type)
	}
	user := dockerfileDirective(t, "USER")
	if want := fmt.Sprintf("%d:%d", pod.RunAsUser, pod.RunAsGroup); user != want || pod.FSGroup != pod.RunAsGroup {
		t.Errorf("pod runs as %s with fsGroup %d; the image's USER is %s", want, pod.FSGroup, user)
	}
}

func TestK8s_ScrapeAnnotations(t *testing.T) {
	m := loadManifests(t)
	a := m.sts.Spec.Template.Metadata.Annotations
	for k, v := range map[string]string{
		"prometheus.io/scrape": "true",
		"prometheus.io/port":   "8765",
		"prometheus.io/path":   "/metrics",
	} {
		if a[k] != v {
			t.Errorf("pod annotation %s = %q, want %q", k, a[k], v)
		}
	}
	// k8s-scrape.yml keeps the pods by this label.
	if m.sts.Spec.Template.Metadata.Labels["app.kubernetes.io/name"] != "lsnode" ||
		!strings.Contains(readFile(t, "prometheus/k8s-scrape.yml"), "__meta_kubernetes_pod_label_app_kubernetes_io_name]\n        regex: lsnode\n") {
		t.Error("prometheus/k8s-scrape.yml does not select the pods by app.kubernetes.io/name=lsnode")
	}
}

// subset reports whether every key of sel has the same value in labels.
func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}
