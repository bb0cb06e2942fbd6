package deploytest

import (
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// composeFile is the part of docker-compose.yaml the tests read. YAML
// merge keys (<<: *anchor) are resolved by the decoder.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image string `yaml:"image"`
	Build *struct {
		Context    string `yaml:"context"`
		Dockerfile string `yaml:"dockerfile"`
	} `yaml:"build"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	Profiles    []string `yaml:"profiles"`
	ReadOnly    bool     `yaml:"read_only"`
	CapDrop     []string `yaml:"cap_drop"`
	SecurityOpt []string `yaml:"security_opt"`
}

// replicaNames are the capgate services that serve traffic.
func replicaNames() []string { return []string{"capgate-a", "capgate-b"} }

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	var c composeFile
	decodeYAML(t, &c, "docker-compose.yaml")
	return c
}

// composeMount is one entry of a service's volumes.
type composeMount struct {
	source, target string
	named, ro      bool
}

func parseMount(s string) composeMount {
	parts := strings.Split(s, ":")
	m := composeMount{source: parts[0], target: parts[1]}
	m.ro = len(parts) > 2 && parts[2] == "ro"
	m.named = !strings.HasPrefix(m.source, ".") && !strings.HasPrefix(m.source, "/")
	return m
}

// mountFor returns the mount whose target holds file, if any.
func (s composeService) mountFor(file string) (composeMount, bool) {
	for _, v := range s.Volumes {
		m := parseMount(v)
		if file == m.target || strings.HasPrefix(file, m.target+"/") {
			return m, true
		}
	}
	return composeMount{}, false
}

func TestComposeServices(t *testing.T) {
	c := loadCompose(t)
	for _, name := range append([]string{"redis", "example-agents", "keys"}, replicaNames()...) {
		if _, ok := c.Services[name]; !ok {
			t.Fatalf("service %s is missing", name)
		}
	}
	redis := c.Services["redis"]
	if redis.Image != "redis:7" || !slices.Equal(redis.Command, []string{"redis-server", "--appendonly", "yes"}) {
		t.Errorf("redis: image %q command %q", redis.Image, redis.Command)
	}
	if redis.Healthcheck == nil || !slices.Contains(redis.Healthcheck.Test, "redis-cli") {
		t.Error("redis has no redis-cli healthcheck")
	}
	a, b := c.Services["capgate-a"], c.Services["capgate-b"]
	if !slices.Equal(a.Command, b.Command) || !slices.Equal(a.Volumes, b.Volumes) || a.Image != b.Image {
		t.Error("the two replicas differ in command, mounts or image: they must share config, policy and keys")
	}
	if len(a.Ports) != 2 || len(b.Ports) != 2 || a.Ports[0] == b.Ports[0] || a.Ports[1] == b.Ports[1] {
		t.Errorf("replica ports %v and %v: want a distinct listener and admin port each", a.Ports, b.Ports)
	}
	for _, name := range replicaNames() {
		s := c.Services[name]
		if s.DependsOn["redis"].Condition != "service_healthy" {
			t.Errorf("%s does not wait for a healthy redis", name)
		}
		if s.DependsOn["keys"].Condition != "service_completed_successfully" {
			t.Errorf("%s does not wait for the key file to be written", name)
		}
		if len(s.Profiles) != 0 {
			t.Errorf("%s is behind a profile", name)
		}
	}
	if c.Services["example-agents"].Environment["CAPGATE_SUMMARIZER_KEY"] == "" {
		t.Error("example-agents lacks CAPGATE_SUMMARIZER_KEY")
	}
	keys := c.Services["keys"]
	if len(keys.Profiles) != 0 || !slices.Contains(keys.Command, "--if-absent") {
		t.Errorf("the keys service must run on every `up` (no profile) and leave an existing file alone (--if-absent): %v %v",
			keys.Profiles, keys.Command)
	}
}

// TestComposeAdminOnLoopback: each replica's admin listener is published,
// on the host's loopback only, at the port its config listens on;
// capgate-a's where capgate revoke looks by default.
func TestComposeAdminOnLoopback(t *testing.T) {
	c := loadCompose(t)
	var cfg configPaths
	decodeYAML(t, &cfg, "deploy", "examples", "compose", "capgate.yaml")
	if cfg.Admin == nil {
		t.Fatal("the compose config has no admin listener")
	}
	_, port, _ := net.SplitHostPort(cfg.Admin.Addr)
	for name, host := range map[string]string{"capgate-a": "127.0.0.1:9090", "capgate-b": "127.0.0.1:9091"} {
		if ports := c.Services[name].Ports; !slices.Contains(ports, host+":"+port) {
			t.Errorf("%s publishes %v, want the admin port %s on %s", name, ports, port, host)
		}
	}
}

// TestComposeHardening: every capgate container runs read-only, without
// capabilities or privilege escalation (the image already runs as 65532).
func TestComposeHardening(t *testing.T) {
	for name, s := range loadCompose(t).Services {
		if name == "redis" {
			continue
		}
		if !s.ReadOnly || !slices.Equal(s.CapDrop, []string{"ALL"}) || !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
			t.Errorf("%s: read_only %v, cap_drop %v, security_opt %v", name, s.ReadOnly, s.CapDrop, s.SecurityOpt)
		}
	}
}

// TestComposeConfigMatchesServices: the config the replicas mount names
// the compose services and ports that exist.
func TestComposeConfigMatchesServices(t *testing.T) {
	c := loadCompose(t)
	var cfg configPaths
	decodeYAML(t, &cfg, "deploy", "examples", "compose", "capgate.yaml")
	agentPorts := listenPorts(t, c.Services["example-agents"].Command)
	for _, a := range cfg.Agents {
		host, port := hostPort(t, a.URL)
		if host != "example-agents" || !slices.Contains(agentPorts, port) {
			t.Errorf("agent %s at %s: example-agents listens on %v", a.Name, a.URL, agentPorts)
		}
	}
	for _, h := range cfg.A2EHosts {
		// The lab A2E host will be served by example-agents (not yet).
		if host, _ := hostPort(t, h.URL); host != "example-agents" {
			t.Errorf("A2E host %s is not the example-agents service", h.URL)
		}
	}
	if cfg.Redis == nil {
		t.Fatal("the compose config has no redis key")
	}
	if host, port := hostPort(t, cfg.Redis.URL); host != "redis" || port != "6379" {
		t.Errorf("redis url %s does not name the redis service", cfg.Redis.URL)
	}
	_, listen, _ := net.SplitHostPort(cfg.Listen.Addr)
	for _, name := range replicaNames() {
		if p := c.Services[name].Ports[0]; !strings.HasSuffix(p, ":"+listen) {
			t.Errorf("%s publishes %s, but capgate listens on %s", name, p, listen)
		}
	}
	gw := flagValue(c.Services["example-agents"].Command, "gateway")
	if host, port := hostPort(t, gw); !slices.Contains(replicaNames(), host) || port != listen {
		t.Errorf("the summarizer calls %s, which is no replica's listener", gw)
	}
}

// TestComposeFilesAreMounted: every file the replicas' config reads is
// mounted from a file that exists, or from the named volume that the keys
// service writes.
func TestComposeFilesAreMounted(t *testing.T) {
	c := loadCompose(t)
	a := c.Services["capgate-a"]
	cfgPath := flagValue(a.Command, "config")
	m, ok := a.mountFor(cfgPath)
	if !ok || m.named || !m.ro || filepath.Clean(m.source) != "deploy/examples/compose/capgate.yaml" {
		t.Fatalf("--config %s is not mounted read-only from deploy/examples/compose/capgate.yaml: %+v", cfgPath, m)
	}
	var cfg configPaths
	decodeYAML(t, &cfg, "deploy", "examples", "compose", "capgate.yaml")
	for _, f := range cfg.files(filepath.Dir(cfgPath)) {
		m, ok := a.mountFor(f)
		switch {
		case !ok:
			t.Errorf("%s is not mounted", f)
		case !m.ro:
			t.Errorf("%s is mounted writable", f)
		case m.named:
			keys := c.Services["keys"]
			km, ok := keys.mountFor(f)
			if _, declared := c.Volumes[m.source]; !declared || !ok || km.source != m.source || flagValue(keys.Command, "out") != f {
				t.Errorf("%s is in volume %s, which the keys service does not write", f, m.source)
			}
		case m.target != f:
			t.Errorf("%s: want the file itself bind-mounted, got the folder %+v", f, m)
		default:
			readFile(t, filepath.FromSlash(m.source))
		}
	}
	for _, env := range cfg.envs() {
		if a.Environment[env] == "" {
			t.Errorf("the config reads $%s, which the replicas do not set", env)
		}
	}
}

func listenPorts(t *testing.T, argv []string) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"documents", "summarizer", "notes"} {
		host, port, err := net.SplitHostPort(flagValue(argv, f))
		if err != nil || host != "0.0.0.0" {
			t.Errorf("example-agents --%s must listen on 0.0.0.0:PORT in a container, got %q", f, flagValue(argv, f))
		}
		out = append(out, port)
	}
	return out
}

func hostPort(t *testing.T, raw string) (string, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	return u.Hostname(), u.Port()
}

// flagValue returns the value of --name in argv ("--name V" or
// "--name=V"), or "".
func flagValue(argv []string, name string) string {
	for i, a := range argv {
		a = strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(argv) && strings.HasPrefix(argv[i], "-") {
			return argv[i+1]
		}
	}
	return ""
}
