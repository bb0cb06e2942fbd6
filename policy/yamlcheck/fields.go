package yamlcheck

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// Fields checks the document n against t, the type it decodes into, and
// returns every unknown key and every value of the wrong kind, in document
// order. Struct fields are known by their yaml tags, inline ones included;
// a type with its own UnmarshalYAML is asked to decode its node, and its
// error is the message.
func Fields(n *yaml.Node, t reflect.Type) []Problem {
	var out []Problem
	fields(n, t, "", &out)
	return out
}

func fields(n *yaml.Node, t reflect.Type, path string, out *[]Problem) {
	for n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	switch {
	case reflect.PointerTo(t).Implements(unmarshalerType):
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			*out = append(*out, at(n, path, message(err)))
		}
	case t.Kind() == reflect.Struct:
		structFields(n, t, path, out)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		if n.Kind != yaml.SequenceNode {
			*out = append(*out, at(n, path, "want a list, found "+Describe(n)))
			return
		}
		for i, item := range n.Content {
			fields(item, t.Elem(), path+"["+strconv.Itoa(i)+"]", out)
		}
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			*out = append(*out, at(n, path, "want a mapping, found "+Describe(n)))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			fields(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), out)
		}
	default:
		if n.Kind != yaml.ScalarNode || n.Decode(reflect.New(t).Interface()) != nil {
			*out = append(*out, at(n, path, "want "+KindName(t.Kind())+", found "+Describe(n)))
		}
	}
}

func structFields(n *yaml.Node, t reflect.Type, path string, out *[]Problem) {
	if n.Kind != yaml.MappingNode {
		*out = append(*out, at(n, path, "want a mapping, found "+Describe(n)))
		return
	}
	known := map[string]reflect.Type{}
	tagged(t, known)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		ft, ok := known[key.Value]
		if !ok {
			names := make([]string, 0, len(known))
			for k := range known {
				names = append(names, k)
			}
			slices.Sort(names)
			*out = append(*out, at(key, join(path, key.Value),
				"unknown key"+Suggest(key.Value, names)+"; known keys here: "+strings.Join(names, ", ")))
			continue
		}
		fields(val, ft, join(path, key.Value), out)
	}
}

// tagged maps the yaml names of t's fields to their types, descending
// into inline fields.
func tagged(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-":
		case strings.Contains(opts, "inline"):
			tagged(f.Type, into)
		case name == "":
			into[strings.ToLower(f.Name)] = f.Type
		default:
			into[name] = f.Type
		}
	}
}

func at(n *yaml.Node, path, msg string) Problem {
	return Problem{Line: n.Line, Col: n.Column, Path: path, Msg: msg}
}

// message is the text of a decoding error, without yaml.v3's prefixes.
func message(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		err = errors.New(te.Errors[0])
	}
	msg, _ := splitMessage(err)
	return msg
}

// Describe names a node for messages: a mapping, a list, or its quoted value.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "an alias"
}

// KindName names a scalar kind for messages, e.g. "an integer".
func KindName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a " + k.String()
}

// Suggest returns ` (did you mean "x"?)` for the closest known name within
// two edits, or "".
func Suggest(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return ` (did you mean "` + best + `"?)`
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
