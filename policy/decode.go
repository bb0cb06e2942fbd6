package policy

import (
	"reflect"
	"strconv"
	"strings"

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
		d.ps.addAt(n, path, ErrSyntax, "anchors and aliases are not allowed in a policy file")
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
	d.ps.addAt(n, path, ErrFieldType, "expected %s, found %s", want, describeNode(n))
}

func (d *decoder) decodeStruct(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.wrongKind(n, path, "a mapping")
		return
	}
	fields := yamlFields(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		name, ok := d.key(key, path)
		if !ok {
			continue
		}
		idx, known := fields[name]
		if !known {
			d.ps.addAt(key, joinPath(path, name), ErrUnknownField, "unknown field %q (known fields: %s)",
				name, strings.Join(sortedKeys(fields), ", "))
			continue
		}
		d.decode(val, joinPath(path, name), v.Field(idx))
	}
}

// key validates a mapping key and returns its text.
func (d *decoder) key(key *yaml.Node, path string) (string, bool) {
	if key.Kind != yaml.ScalarNode || key.Tag == "!!merge" {
		d.ps.addAt(key, path, ErrSyntax, "mapping keys must be plain strings, found %s", describeNode(key))
		return "", false
	}
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
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, ok := d.key(n.Content[i], path)
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
		d.wrongKind(n, path, "a "+v.Kind().String())
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
		d.ps.addAt(n, path, ErrFieldType, "expected a %s, found %q", v.Kind(), n.Value)
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

// describeNode names a node's kind for error messages.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "a document"
}
