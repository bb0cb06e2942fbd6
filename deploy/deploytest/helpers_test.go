package deploytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/config"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "regenerate the Kubernetes ConfigMaps from deploy/examples/production/")

// root is the repository root, relative to this package.
const root = "../.."

// path joins parts under the repository root.
func path(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }

func readFile(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(path(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// yamlDocs decodes every document of a (multi-document) YAML file. The
// decoder refuses duplicate keys.
func yamlDocs(data []byte) ([]yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, n)
	}
}

// decodeYAML decodes a one-document YAML file into out.
func decodeYAML(t *testing.T, out any, parts ...string) {
	t.Helper()
	if err := yaml.Unmarshal(readFile(t, parts...), out); err != nil {
		t.Fatalf("%s: %v", filepath.Join(parts...), err)
	}
}

// loaderAcceptsRedis reports whether config.Config has a top-level
// `redis` key yet.
func loaderAcceptsRedis() bool {
	ct := reflect.TypeFor[config.Config]()
	for i := range ct.NumField() {
		if tag, _, _ := strings.Cut(ct.Field(i).Tag.Get("yaml"), ","); tag == "redis" {
			return true
		}
	}
	return false
}

// skipUntilRedis skips a test of a config with a redis key until the
// loader accepts one. It must never be weakened into ignoring the key.
func skipUntilRedis(t *testing.T) {
	t.Helper()
	if !loaderAcceptsRedis() {
		t.Skip("config.Load does not accept the top-level redis key yet (gateway/config must add it); " +
			"the compose and production configs need it")
	}
}

// schema compiles deploy/capgate.schema.json.
func schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(path("deploy", "capgate.schema.json"))
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

// asJSONValue converts a YAML document to the value jsonschema validates.
func asJSONValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// configPaths are the file paths and secrets a config names, as written.
type configPaths struct {
	Listen struct {
		Addr string `yaml:"addr"`
	} `yaml:"listen"`
	Admin *struct {
		Addr string `yaml:"addr"`
	} `yaml:"admin"`
	Policy struct {
		File string `yaml:"file"`
	} `yaml:"policy"`
	Capabilities struct {
		KeysFile string `yaml:"keys_file"`
	} `yaml:"capabilities"`
	Agents []struct {
		Name         string `yaml:"name"`
		URL          string `yaml:"url"`
		UpstreamAuth *struct {
			ClientSecretFile string `yaml:"client_secret_file"`
			ClientSecretEnv  string `yaml:"client_secret_env"`
		} `yaml:"upstream_auth"`
	} `yaml:"agents"`
	A2EHosts []struct {
		URL          string `yaml:"url"`
		AuthTokenEnv string `yaml:"auth_token_env"`
	} `yaml:"a2e_hosts"`
	DevKeys []any `yaml:"dev_keys"`
	Redis   *struct {
		URL         string   `yaml:"url"`
		Addrs       []string `yaml:"addrs"`
		PasswordEnv string   `yaml:"password_env"`
	} `yaml:"redis"`
}

// files returns the files the config reads, resolved like config.Load does
// against configDir (the folder the config is in, where it runs).
func (c configPaths) files(configDir string) []string {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(configDir, p)
	}
	out := []string{abs(c.Policy.File)}
	if c.Capabilities.KeysFile != "" {
		out = append(out, abs(c.Capabilities.KeysFile))
	}
	for _, a := range c.Agents {
		if a.UpstreamAuth != nil && a.UpstreamAuth.ClientSecretFile != "" {
			out = append(out, abs(a.UpstreamAuth.ClientSecretFile))
		}
	}
	return out
}

// envs returns the environment variables the config reads.
func (c configPaths) envs() []string {
	var out []string
	if c.Redis != nil && c.Redis.PasswordEnv != "" {
		out = append(out, c.Redis.PasswordEnv)
	}
	for _, a := range c.Agents {
		if a.UpstreamAuth != nil && a.UpstreamAuth.ClientSecretEnv != "" {
			out = append(out, a.UpstreamAuth.ClientSecretEnv)
		}
	}
	for _, h := range c.A2EHosts {
		if h.AuthTokenEnv != "" {
			out = append(out, h.AuthTokenEnv)
		}
	}
	return out
}
