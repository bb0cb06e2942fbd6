package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxFileBytes bounds the size of a config file.
const MaxFileBytes = 1 << 20

// Load reads and validates the config file at path. Relative file paths in
// the config (policy, keys) are resolved against the config file's folder.
func Load(path string) (*Config, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	cfg.resolvePaths(dirOf(path))
	return cfg, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRead, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRead, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrRead, path, MaxFileBytes)
	}
	return data, nil
}

// Parse decodes and validates a config document. name is used in messages.
// Every problem is reported in one error that wraps ErrInvalid.
func Parse(data []byte, name string) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalid, name, cleanYAMLError(err))
	}
	if root.Kind == 0 {
		return nil, fmt.Errorf("%w: %s: empty document", ErrInvalid, name)
	}
	var cfg Config
	var problems []error
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		problems = append(problems, yamlProblems(name, err)...)
	}
	cfg.applyDefaults()
	for _, p := range cfg.validate() {
		problems = append(problems, p.locate(name, &root))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w:\n%w", ErrInvalid, errors.Join(problems...))
	}
	return &cfg, nil
}

// yamlProblems splits a yaml.TypeError into one error per problem, so that
// every unknown key and wrong type is reported, not only the first.
func yamlProblems(name string, err error) []error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []error{fmt.Errorf("%s: %s", name, cleanYAMLError(err))}
	}
	out := make([]error, 0, len(te.Errors))
	for _, msg := range te.Errors {
		out = append(out, fmt.Errorf("%s:%s", name, strings.TrimPrefix(msg, "line ")))
	}
	return out
}

func cleanYAMLError(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// problem is one validation failure at a path such as agents[0].url.
type problem struct {
	path string
	msg  string
}

func (p problem) locate(name string, root *yaml.Node) error {
	if line, col, ok := position(root, p.path); ok {
		return fmt.Errorf("%s:%d:%d: %s: %s", name, line, col, p.path, p.msg)
	}
	return fmt.Errorf("%s: %s: %s", name, p.path, p.msg)
}

var segment = regexp.MustCompile(`^([a-z_]+)(?:\[(\d+)\])?$`)

// position finds the line and column of a dotted path in the document. It
// returns the deepest node it could reach, so a missing key points at its
// parent.
func position(root *yaml.Node, path string) (int, int, bool) {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	found := false
	line, col := n.Line, n.Column
	for _, seg := range strings.Split(path, ".") {
		m := segment.FindStringSubmatch(seg)
		if m == nil || n.Kind != yaml.MappingNode {
			break
		}
		next := mapValue(n, m[1])
		if next == nil {
			break
		}
		n, found = next, true
		line, col = n.Line, n.Column
		if m[2] == "" {
			continue
		}
		i, _ := strconv.Atoi(m[2])
		if n.Kind != yaml.SequenceNode || i >= len(n.Content) {
			break
		}
		n = n.Content[i]
		line, col = n.Line, n.Column
	}
	return line, col, found
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// UnmarshalYAML decodes a Go duration string such as "1h30m".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: duration must be a string such as \"30s\"", n.Line)}}
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not a duration such as \"30s\"", n.Line, n.Value)}}
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML encodes the duration as a Go duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }
