package siem_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// schemaDir holds the OCSF 1.8.0 files the tests validate against,
// copied unchanged from github.com/ocsf/ocsf-schema at tag 1.8.0 (Apache
// License 2.0, see its LICENSE): the dictionary, the categories, the
// classes used and their parents, and every object they reach.
const schemaDir = "testdata/ocsf-1.8.0"

// attrDef is one attribute as a class or object defines it, merged with
// its parents' definitions.
type attrDef struct {
	Requirement string                     `json:"requirement"`
	Enum        map[string]json.RawMessage `json:"enum"`
}

// schemaFile is a class or object file.
type schemaFile struct {
	Name        string                     `json:"name"`
	UID         int                        `json:"uid"`
	Extends     string                     `json:"extends"`
	Category    string                     `json:"category"`
	Attributes  map[string]json.RawMessage `json:"attributes"`
	Constraints map[string][]string        `json:"constraints"`
}

// dictAttr is an attribute of the dictionary: its type and whether it is
// an array.
type dictAttr struct {
	Type    string                     `json:"type"`
	IsArray bool                       `json:"is_array"`
	Enum    map[string]json.RawMessage `json:"enum"`
}

// schema is the vendored OCSF subset, loaded.
type schema struct {
	dict  map[string]dictAttr
	types map[string]string // scalar type → its base type ("" for a base)
	dir   string
}

func loadSchema(t *testing.T) *schema {
	t.Helper()
	var d struct {
		Attributes map[string]dictAttr `json:"attributes"`
		Types      struct {
			Attributes map[string]struct {
				Type string `json:"type"`
			} `json:"attributes"`
		} `json:"types"`
	}
	readJSON(t, filepath.Join(schemaDir, "dictionary.json"), &d)
	s := &schema{dict: d.Attributes, types: map[string]string{}, dir: schemaDir}
	for k, v := range d.Types.Attributes {
		s.types[k] = v.Type
	}
	return s
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// definition loads a class (under events/) or object (under objects/)
// with everything it extends: attributes merged child over parent
// ("$include" profiles are not applied), constraints the nearest one's.
type definition struct {
	uid, category int
	attrs         map[string]attrDef
	constraints   map[string][]string
}

func (s *schema) load(t *testing.T, rel string) definition {
	t.Helper()
	var f schemaFile
	readJSON(t, filepath.Join(s.dir, rel), &f)
	def := definition{uid: f.UID, attrs: map[string]attrDef{}, constraints: f.Constraints}
	if f.Extends != "" {
		parent := filepath.Join(filepath.Dir(rel), f.Extends+".json")
		if f.Extends == "base_event" {
			parent = "events/base_event.json"
		}
		def = s.load(t, parent)
		def.uid = f.UID
		if f.Constraints != nil {
			def.constraints = f.Constraints
		}
	}
	for name, raw := range f.Attributes {
		if name == "$include" {
			continue
		}
		var a attrDef
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("%s: %s: %v", rel, name, err)
		}
		merged := def.attrs[name]
		if a.Requirement != "" {
			merged.Requirement = a.Requirement
		}
		if a.Enum != nil {
			merged.Enum = maps.Clone(merged.Enum)
			if merged.Enum == nil {
				merged.Enum = map[string]json.RawMessage{}
			}
			maps.Copy(merged.Enum, a.Enum)
		}
		def.attrs[name] = merged
	}
	return def
}

// validate checks v against def: every required attribute present, no
// attribute def does not define, each value of its dictionary type (an
// object recursively against its object file), enums respected, and the
// at_least_one and just_one constraints. It returns every problem.
func (s *schema) validate(t *testing.T, v map[string]any, def definition, path string) []string {
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(def.attrs)) {
		if _, ok := v[name]; !ok && def.attrs[name].Requirement == "required" {
			bad = append(bad, path+name+": required, missing")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(v)) {
		a, ok := def.attrs[name]
		if !ok {
			bad = append(bad, path+name+": not an attribute here")
			continue
		}
		bad = append(bad, s.value(t, v[name], name, a, path+name)...)
	}
	for kind, names := range def.constraints {
		n := 0
		for _, name := range names {
			if _, ok := v[name]; ok {
				n++
			}
		}
		if (kind == "at_least_one" && n == 0) || (kind == "just_one" && n != 1) {
			bad = append(bad, fmt.Sprintf("%s: constraint %s of %v", path, kind, names))
		}
	}
	return bad
}

// computed are the attributes whose enums the OCSF schema server fills
// from the categories and classes (the dictionary holds a stub); the test
// checks them against categories.json and the class file itself.
var computed = map[string]bool{"class_uid": true, "category_uid": true, "type_uid": true}

// value checks one attribute's value against its dictionary type.
func (s *schema) value(t *testing.T, v any, name string, a attrDef, path string) []string {
	d, ok := s.dict[name]
	if !ok {
		return []string{path + ": not in the dictionary"}
	}
	if d.IsArray {
		arr, ok := v.([]any)
		if !ok {
			return []string{path + ": want an array"}
		}
		var bad []string
		for i, x := range arr {
			bad = append(bad, s.one(t, x, d.Type, path+"["+strconv.Itoa(i)+"]")...)
		}
		return bad
	}
	bad := s.one(t, v, d.Type, path)
	enum := a.Enum
	if enum == nil {
		enum = d.Enum
	}
	if computed[name] {
		enum = nil
	}
	if n, isNum := v.(json.Number); isNum && enum != nil {
		if _, ok := enum[n.String()]; !ok {
			bad = append(bad, fmt.Sprintf("%s: %s is not in its enum", path, n))
		}
	}
	return bad
}

// one checks one value of type typ: a scalar type by its JSON kind, an
// object against its file ("object" takes any object).
func (s *schema) one(t *testing.T, v any, typ, path string) []string {
	base := typ
	for s.types[base] != "" {
		base = s.types[base]
	}
	kind := ""
	switch base {
	case "string_t":
		_, ok := v.(string)
		kind = map[bool]string{false: "a string"}[ok]
	case "integer_t", "long_t":
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			kind = "an integer"
		}
	case "float_t":
		if _, ok := v.(json.Number); !ok {
			kind = "a number"
		}
	case "boolean_t":
		if _, ok := v.(bool); !ok {
			kind = "a boolean"
		}
	case "json_t":
	default:
		if _, isType := s.types[typ]; isType {
			return []string{path + ": unhandled type " + typ}
		}
		m, ok := v.(map[string]any)
		if !ok {
			return []string{path + ": want an object " + typ}
		}
		if typ == "object" {
			return nil
		}
		return s.validate(t, m, s.load(t, "objects/"+typ+".json"), path+".")
	}
	if kind != "" {
		return []string{path + ": want " + kind}
	}
	return nil
}

// TestValidatorCatches: the validator is not a rubber stamp: a record
// missing a required attribute, with an unknown one, a wrong type, an
// enum value out of range or an object breaking its constraint fails.
func TestValidatorCatches(t *testing.T) {
	s := loadSchema(t)
	def := s.load(t, "events/application/api_activity.json")
	tests := []struct {
		name string
		rec  string
	}{
		{"missing api", `{"activity_id":1,"category_uid":6,"class_uid":6003,"severity_id":1,"time":1,"type_uid":600301,
			"metadata":{"version":"1.8.0","product":{"name":"capgate"}},"actor":{"app_name":"x"},"src_endpoint":{"uid":"c"}}`},
		{"unknown attribute", `{"activity_id":1,"category_uid":6,"class_uid":6003,"severity_id":1,"time":1,"type_uid":600301,"colour":"red",
			"metadata":{"version":"1.8.0","product":{"name":"capgate"}},"actor":{"app_name":"x"},"api":{"operation":"o"},"src_endpoint":{"uid":"c"}}`},
		{"wrong type", `{"activity_id":1,"category_uid":6,"class_uid":6003,"severity_id":1,"time":"now","type_uid":600301,
			"metadata":{"version":"1.8.0","product":{"name":"capgate"}},"actor":{"app_name":"x"},"api":{"operation":"o"},"src_endpoint":{"uid":"c"}}`},
		{"enum", `{"activity_id":7,"category_uid":6,"class_uid":6003,"severity_id":1,"time":1,"type_uid":600307,
			"metadata":{"version":"1.8.0","product":{"name":"capgate"}},"actor":{"app_name":"x"},"api":{"operation":"o"},"src_endpoint":{"uid":"c"}}`},
		{"constraint", `{"activity_id":1,"category_uid":6,"class_uid":6003,"severity_id":1,"time":1,"type_uid":600301,
			"metadata":{"version":"1.8.0","product":{"name":"capgate"}},"actor":{"app_name":"x","user":{"type":"User"}},"api":{"operation":"o"},"src_endpoint":{"uid":"c"}}`},
	}
	for _, tt := range tests {
		dec := json.NewDecoder(strings.NewReader(tt.rec))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if bad := s.validate(t, v, def, ""); len(bad) == 0 {
			t.Errorf("%s: validated", tt.name)
		}
	}
}
