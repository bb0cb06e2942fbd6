package deploytest

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// TestManifestsAreWellFormed: every document names its API version, kind
// and name; no Secret is shipped; the kustomization lists every file.
func TestManifestsAreWellFormed(t *testing.T) {
	ms := manifests(t)
	var listed []string
	for file, objs := range ms {
		for _, o := range objs {
			if o.Kind == "Kustomization" {
				listed = o.Resources
				continue
			}
			if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
				t.Errorf("%s: a document without apiVersion, kind or metadata.name", file)
			}
			if o.Kind == "Secret" || len(o.StringData) > 0 {
				t.Errorf("%s ships a Secret: keys and passwords are referenced, never committed", file)
			}
			if o.Metadata.Labels["app.kubernetes.io/name"] != "capgate" {
				t.Errorf("%s %s lacks the app.kubernetes.io/name label", o.Kind, o.Metadata.Name)
			}
		}
	}
	want := slices.Sorted(maps.Keys(ms))
	want = slices.DeleteFunc(want, func(f string) bool { return f == "kustomization.yaml" })
	if got := slices.Sorted(slices.Values(listed)); !slices.Equal(got, want) {
		t.Errorf("kustomization resources %v, want %v", got, want)
	}
}

func TestDeployment(t *testing.T) {
	d, c := capgatePod(t)
	pod := d.Template.Spec
	if d.Replicas != 2 {
		t.Errorf("replicas = %d, want 2", d.Replicas)
	}
	for k, v := range d.Selector.MatchLabels {
		if d.Template.Metadata.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod labels", k, v)
		}
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" || !hasPort(c, p.HTTPGet.Port) {
		t.Error("readiness probe: want GET /readyz on a named container port")
	}
	if p := c.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || !hasPort(c, p.HTTPGet.Port) {
		t.Error("liveness probe: want GET /healthz on a named container port")
	}
	for _, kind := range []string{"cpu", "memory"} {
		if c.Resources.Requests[kind] == "" || c.Resources.Limits[kind] == "" {
			t.Errorf("no %s request or limit", kind)
		}
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the pod mounts a service account token it does not need")
	}
	if r := pod.SecurityContext.RunAsNonRoot; r == nil || !*r || pod.SecurityContext.RunAsUser == 0 {
		t.Error("the pod may run as root")
	}
	for _, ct := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		sc := ct.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || !slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
			t.Errorf("container %s: want allowPrivilegeEscalation false, readOnlyRootFilesystem true, runAsNonRoot true, drop ALL", ct.Name)
		}
	}
	for _, ct := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		for _, m := range ct.VolumeMounts {
			if !slices.ContainsFunc(pod.Volumes, func(v k8sVolume) bool { return v.Name == m.Name }) {
				t.Errorf("container %s mounts %s, which is no volume", ct.Name, m.Name)
			}
		}
	}
	drain, shutdown := productionDrain(t)
	if grace := time.Duration(pod.TerminationGracePeriodSeconds) * time.Second; grace <= drain+shutdown {
		t.Errorf("terminationGracePeriodSeconds %v does not cover drain_delay %v + shutdown_timeout %v", grace, drain, shutdown)
	}
}

func hasPort(c k8sContainer, name string) bool {
	return slices.ContainsFunc(c.Ports, func(p k8sPort) bool { return p.Name == name })
}

func productionDrain(t *testing.T) (drain, shutdown time.Duration) {
	t.Helper()
	var cfg struct {
		Listen struct {
			DrainDelay      string `yaml:"drain_delay"`
			ShutdownTimeout string `yaml:"shutdown_timeout"`
		} `yaml:"listen"`
	}
	decodeYAML(t, &cfg, "deploy", "examples", "production", "capgate.yaml")
	drain, err1 := time.ParseDuration(cfg.Listen.DrainDelay)
	shutdown, err2 := time.ParseDuration(cfg.Listen.ShutdownTimeout)
	if err1 != nil || err2 != nil {
		t.Fatalf("production listen durations: %v %v", err1, err2)
	}
	return drain, shutdown
}

func TestServiceAndDisruptionBudget(t *testing.T) {
	ms := manifests(t)
	d, c := capgatePod(t)
	svc := decodeSpec[serviceSpec](t, object(t, ms, "Service", "capgate"))
	for k, v := range svc.Selector {
		if d.Template.Metadata.Labels[k] != v {
			t.Errorf("Service selector %s=%s matches no capgate pod", k, v)
		}
	}
	if len(svc.Ports) != 1 || !hasPort(c, svc.Ports[0].TargetPort) || svc.Ports[0].TargetPort == "admin" {
		t.Errorf("Service ports %+v: want the public port only", svc.Ports)
	}
	pdb := decodeSpec[pdbSpec](t, object(t, ms, "PodDisruptionBudget", "capgate"))
	if pdb.MinAvailable != 1 {
		t.Errorf("PodDisruptionBudget minAvailable = %d, want 1", pdb.MinAvailable)
	}
	for k, v := range pdb.Selector.MatchLabels {
		if d.Template.Metadata.Labels[k] != v {
			t.Errorf("PodDisruptionBudget selector %s=%s matches no capgate pod", k, v)
		}
	}
}

// source is where a file inside the capgate container comes from.
type source struct {
	kind, name, key string // configmap|secret|emptydir, object or volume name, key
}

// containerFiles maps the files c sees to their sources. With
// followEmptyDirs, an emptyDir gives the files an init container copies
// into it with `install`.
func containerFiles(pod podSpec, c k8sContainer, followEmptyDirs bool) map[string]source {
	out := map[string]source{}
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Volumes {
			if v.Name != m.Name {
				continue
			}
			switch {
			case v.Projected != nil:
				for _, s := range v.Projected.Sources {
					for _, it := range s.ConfigMap.Items {
						out[filepath.Join(m.MountPath, it.Path)] = source{"configmap", s.ConfigMap.Name, it.Key}
					}
				}
			case v.Secret != nil:
				for _, it := range v.Secret.Items {
					out[filepath.Join(m.MountPath, it.Path)] = source{"secret", v.Secret.SecretName, it.Key}
				}
			case v.EmptyDir != nil && followEmptyDirs:
				for rel, from := range installedFiles(pod, v.Name) {
					out[filepath.Join(m.MountPath, rel)] = from
				}
			}
		}
	}
	return out
}

// installedFiles returns, by path inside the emptyDir volume, the files an
// init container copies into it with `install SRC DST`, and their sources.
func installedFiles(pod podSpec, volume string) map[string]source {
	out := map[string]source{}
	for _, ic := range pod.InitContainers {
		if len(ic.Command) < 3 || ic.Command[0] != "install" {
			continue
		}
		from := containerFiles(pod, ic, false)
		src, dst := ic.Command[len(ic.Command)-2], ic.Command[len(ic.Command)-1]
		for _, m := range ic.VolumeMounts {
			if rel, ok := strings.CutPrefix(dst, m.MountPath+"/"); ok && m.Name == volume {
				out[rel] = from[src]
			}
		}
	}
	return out
}

// TestKubernetesFilesAreMounted: the config capgate is started with is the
// capgate-config ConfigMap, and every file and variable it reads is
// provided: the policy from its ConfigMap, the keys from the capgate-keys
// Secret (through install-keys), client secrets and the Redis password
// from Secrets.
func TestKubernetesFilesAreMounted(t *testing.T) {
	ms := manifests(t)
	d, c := capgatePod(t)
	files := containerFiles(d.Template.Spec, c, true)
	cfgPath := flagValue(c.Args, "config")
	src, ok := files[cfgPath]
	if !ok || src.kind != "configmap" {
		t.Fatalf("--config %s is not mounted from a ConfigMap", cfgPath)
	}
	cm := object(t, ms, "ConfigMap", src.name)
	var cfg configPaths
	if err := yaml.Unmarshal([]byte(cm.Data[src.key]), &cfg); err != nil || cm.Data[src.key] == "" {
		t.Fatalf("ConfigMap %s key %s: %v", src.name, src.key, err)
	}
	for _, f := range cfg.files(filepath.Dir(cfgPath)) {
		s, ok := files[f]
		switch {
		case !ok || s.kind == "":
			t.Errorf("%s is not mounted (or not installed from a Secret)", f)
		case s.kind == "configmap":
			if _, ok := object(t, ms, "ConfigMap", s.name).Data[s.key]; !ok {
				t.Errorf("%s: ConfigMap %s has no key %s", f, s.name, s.key)
			}
		case s.kind != "secret":
			t.Errorf("%s comes from %+v", f, s)
		}
	}
	if keys := files[cfg.Capabilities.KeysFile]; keys.kind != "secret" || keys.name != "capgate-keys" {
		t.Errorf("the key file comes from %+v, want the capgate-keys Secret", keys)
	}
	for _, env := range cfg.envs() {
		found := false
		for _, e := range c.Env {
			found = found || (e.Name == env && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil)
		}
		if !found {
			t.Errorf("the config reads $%s, which the container does not take from a Secret", env)
		}
	}
}
