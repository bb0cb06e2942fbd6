package policy

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/capgate/capgate/policy/yamlcheck"
	"go.yaml.in/yaml/v3"
)

// stringList is a YAML value that may be written as one scalar or as a list
// of scalars (claims and filter values).
type stringList []string

// decoder is a strict YAML-node-to-struct decoder. It is the equivalent of
// yaml.v3's KnownFields(true), but it reports every unknown field and every
// type error with its line and column instead of stopping at the first, and
// it records the node of every field path so that later validation can point
// at the exact line too.
type decoder struct {
	ps *problems
}

var stringListType = reflect.TypeFor[stringList]()

// decode fills v (addressable) from n, recording problems under path.
func (d *decoder) decode(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		d.ps.recordf(n, path, ErrSyntax, "anchors and aliases are not allowed in a policy file")
		return
	}
	d.ps.nodes[path] = n
	if v.Type() == stringListType {
		d.decodeStringList(n, path, v)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		d.decode(n, path, v.Elem())
	case reflect.Struct:
		d.decodeStruct(n, path, v)
	case reflect.Slice:
		d.decodeSlice(n, path, v)
	case reflect.Map:
		d.decodeMap(n, path, v)
	default:
		d.decodeScalar(n, path, v)
	}
}

func (d *decoder) wrongKind(n *yaml.Node, path, want string) {
	d.ps.recordf(n, path, ErrFieldType, "expected %s, found %s", want, yamlcheck.Describe(n))
}

func (d *decoder) decodeStruct(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.wrongKind(n, path, "a mapping")
		return
	}
	fields := yamlFields(v.Type())
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		name, ok := d.key(key, path, seen)
		if !ok {
			continue
		}
		idx, known := fields[name]
		if !known {
			d.ps.recordf(key, joinPath(path, name), ErrUnknownField, "unknown field %q%s (known fields: %s)",
				name, yamlcheck.Suggest(name, sortedKeys(fields)), strings.Join(sortedKeys(fields), ", "))
			continue
		}
		d.decode(val, joinPath(path, name), v.Field(idx))
	}
}

// key validates a mapping key and returns its text. A key repeated in the
// same mapping is an error: a policy never means two things at once.
func (d *decoder) key(key *yaml.Node, path string, seen map[string]*yaml.Node) (string, bool) {
	if key.Kind != yaml.ScalarNode || key.Tag == "!!merge" {
		d.ps.recordf(key, path, ErrSyntax, "mapping keys must be plain strings, found %s", yamlcheck.Describe(key))
		return "", false
	}
	if first, dup := seen[key.Value]; dup {
		d.ps.recordf(key, joinPath(path, key.Value), ErrSyntax, "duplicate key %q (first at line %d)", key.Value, first.Line)
		return "", false
	}
	seen[key.Value] = key
	return key.Value, true
}

func (d *decoder) decodeSlice(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.SequenceNode {
		d.wrongKind(n, path, "a list")
		return
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, path+"["+strconv.Itoa(i)+"]", out.Index(i))
	}
	v.Set(out)
}

func (d *decoder) decodeMap(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.wrongKind(n, path, "a mapping")
		return
	}
	out := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, ok := d.key(n.Content[i], path, seen)
		if !ok {
			continue
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(n.Content[i+1], joinPath(path, name), elem)
		out.SetMapIndex(reflect.ValueOf(name).Convert(v.Type().Key()), elem)
	}
	v.Set(out)
}

func (d *decoder) decodeStringList(n *yaml.Node, path string, v reflect.Value) {
	switch n.Kind {
	case yaml.ScalarNode:
		v.Set(reflect.ValueOf(stringList{n.Value}))
	case yaml.SequenceNode:
		out := make(stringList, 0, len(n.Content))
		for i, item := range n.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			d.ps.nodes[p] = item
			if item.Kind != yaml.ScalarNode {
				d.wrongKind(item, p, "a scalar")
				continue
			}
			out = append(out, item.Value)
		}
		v.Set(reflect.ValueOf(out))
	default:
		d.wrongKind(n, path, "a scalar or a list of scalars")
	}
}

func (d *decoder) decodeScalar(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.ScalarNode {
		d.wrongKind(n, path, yamlcheck.KindName(v.Kind()))
		return
	}
	if v.Kind() == reflect.String {
		if n.Tag == "!!null" {
			return
		}
		v.SetString(n.Value)
		return
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		d.ps.recordf(n, path, ErrFieldType, "expected %s, found %q", yamlcheck.KindName(v.Kind()), n.Value)
	}
}

// yamlFields maps yaml tag names to field indexes.
func yamlFields(t reflect.Type) map[string]int {
	out := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag != "" && tag != "-" {
			out[tag] = i
		}
	}
	return out
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
