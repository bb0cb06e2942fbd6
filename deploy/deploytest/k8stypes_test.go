package deploytest

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The parts of Kubernetes objects the tests read, with the API's field
// names (yaml.v3 would otherwise lower-case Go field names).

type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       yaml.Node         `yaml:"spec"`
	Resources  []string          `yaml:"resources"` // kustomization
}

type labelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type deploymentSpec struct {
	Replicas int           `yaml:"replicas"`
	Selector labelSelector `yaml:"selector"`
	Template struct {
		Metadata struct {
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec podSpec `yaml:"spec"`
	} `yaml:"template"`
}

type podSpec struct {
	AutomountServiceAccountToken  *bool `yaml:"automountServiceAccountToken"`
	TerminationGracePeriodSeconds int   `yaml:"terminationGracePeriodSeconds"`
	SecurityContext               struct {
		RunAsNonRoot *bool `yaml:"runAsNonRoot"`
		RunAsUser    int64 `yaml:"runAsUser"`
		FSGroup      int64 `yaml:"fsGroup"`
	} `yaml:"securityContext"`
	InitContainers []k8sContainer `yaml:"initContainers"`
	Containers     []k8sContainer `yaml:"containers"`
	Volumes        []k8sVolume    `yaml:"volumes"`
}

type k8sContainer struct {
	Name    string    `yaml:"name"`
	Image   string    `yaml:"image"`
	Command []string  `yaml:"command"`
	Args    []string  `yaml:"args"`
	Ports   []k8sPort `yaml:"ports"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	ReadinessProbe *k8sProbe `yaml:"readinessProbe"`
	LivenessProbe  *k8sProbe `yaml:"livenessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext *struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

type k8sPort struct {
	Name          string `yaml:"name"`
	ContainerPort int    `yaml:"containerPort"`
}

type k8sProbe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

type keyToPath struct {
	Key  string `yaml:"key"`
	Path string `yaml:"path"`
}

type k8sVolume struct {
	Name   string `yaml:"name"`
	Secret *struct {
		SecretName string      `yaml:"secretName"`
		Items      []keyToPath `yaml:"items"`
	} `yaml:"secret"`
	EmptyDir *struct {
		Medium string `yaml:"medium"`
	} `yaml:"emptyDir"`
	Projected *struct {
		Sources []struct {
			ConfigMap *struct {
				Name  string      `yaml:"name"`
				Items []keyToPath `yaml:"items"`
			} `yaml:"configMap"`
		} `yaml:"sources"`
	} `yaml:"projected"`
}

type serviceSpec struct {
	Selector map[string]string `yaml:"selector"`
	Ports    []struct {
		Name       string `yaml:"name"`
		Port       int    `yaml:"port"`
		TargetPort string `yaml:"targetPort"`
	} `yaml:"ports"`
}

type pdbSpec struct {
	MinAvailable int           `yaml:"minAvailable"`
	Selector     labelSelector `yaml:"selector"`
}

// manifests decodes every document of every YAML file in deploy/kubernetes.
func manifests(t *testing.T) map[string][]k8sObject {
	t.Helper()
	files, err := filepath.Glob(path("deploy", "kubernetes", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	out := map[string][]k8sObject{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := yamlDocs(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range docs {
			var o k8sObject
			if err := docs[i].Decode(&o); err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			out[filepath.Base(f)] = append(out[filepath.Base(f)], o)
		}
	}
	return out
}

// object returns the one object of kind and name.
func object(t *testing.T, ms map[string][]k8sObject, kind, name string) k8sObject {
	t.Helper()
	var found []k8sObject
	for _, objs := range ms {
		for _, o := range objs {
			if o.Kind == kind && o.Metadata.Name == name {
				found = append(found, o)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s %s, found %d", kind, name, len(found))
	}
	return found[0]
}

func decodeSpec[T any](t *testing.T, o k8sObject) T {
	t.Helper()
	var spec T
	if err := o.Spec.Decode(&spec); err != nil {
		t.Fatalf("%s %s spec: %v", o.Kind, o.Metadata.Name, err)
	}
	return spec
}

// capgatePod returns the capgate Deployment's pod spec and its capgate
// container.
func capgatePod(t *testing.T) (deploymentSpec, k8sContainer) {
	t.Helper()
	d := decodeSpec[deploymentSpec](t, object(t, manifests(t), "Deployment", "capgate"))
	for _, c := range d.Template.Spec.Containers {
		if c.Name == "capgate" {
			return d, c
		}
	}
	t.Fatal("the Deployment has no capgate container")
	return d, k8sContainer{}
}
