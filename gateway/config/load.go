package config

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/policy/yamlcheck"
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
// Every problem is reported in one error that wraps ErrInvalid, one line
// per problem as name:line:col: key.path: message, in document order.
func Parse(data []byte, name string) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, invalid(name, []yamlcheck.Problem{yamlcheck.Syntax(data, err)})
	}
	if root.Kind == 0 {
		return nil, fmt.Errorf("%w: %s: empty document", ErrInvalid, name)
	}
	problems := yamlcheck.Fields(&root, reflect.TypeFor[Config]())
	var cfg Config
	if err := root.Decode(&cfg); err != nil && len(problems) == 0 {
		// Fields reports every decoding problem; fail closed if it missed one.
		problems = append(problems, yamlcheck.Problem{Msg: err.Error()})
	}
	cfg.applyDefaults()
	for _, err := range cfg.validate() {
		problems = append(problems, locate(err, &root))
	}
	if len(problems) > 0 {
		return nil, invalid(name, problems)
	}
	return &cfg, nil
}

// invalid is the error for a document with problems, sorted by position.
func invalid(name string, problems []yamlcheck.Problem) error {
	slices.SortStableFunc(problems, func(a, b yamlcheck.Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = errors.New(p.Format(name))
	}
	return fmt.Errorf("%w:\n%w", ErrInvalid, errors.Join(errs...))
}

// locate places a validation problem at its key path in the document, or
// at the deepest parent that exists.
func locate(err error, root *yaml.Node) yamlcheck.Problem {
	var p *problem
	if !errors.As(err, &p) {
		return yamlcheck.Problem{Msg: err.Error()}
	}
	line, col, _ := position(root, p.path)
	return yamlcheck.Problem{Line: line, Col: col, Path: p.path, Msg: p.msg}
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

// UnmarshalYAML decodes a Go duration string such as "1h30m". Its errors
// are *yaml.TypeError, so that decoding goes on and reports the rest.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{`want a duration such as "30s"`}}
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf(`%q is not a duration such as "30s"`, n.Value)}}
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML encodes the duration as a Go duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }
