package yamlcheck

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSyntax(t *testing.T) {
	tests := []struct {
		name, doc string
		want      Problem
	}{
		{"open bracket", "a: 1\nb:\n  c: [x\n  d: 2\n", Problem{Line: 3, Col: 6, Path: "b.c"}},
		{"open quote closed far below", "a: \"x\nb: 1\nc: 2\nd: \"y\"\n", Problem{Line: 1, Col: 4, Path: "a"}},
		{"mapping value in a scalar", "a:\n  b: 1\n   c: 2\n", Problem{Line: 3, Col: 5, Path: "a.b"}},
		{"tab indent", "a:\n\tb: 1\n", Problem{Line: 2, Col: 1, Path: "a"}},
		{"first line", "[", Problem{Line: 1, Col: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n yaml.Node
			err := yaml.Unmarshal([]byte(tt.doc), &n)
			if err == nil {
				t.Fatal("the document parses")
			}
			got := Syntax([]byte(tt.doc), err)
			if got.Line != tt.want.Line || got.Col != tt.want.Col || got.Path != tt.want.Path || got.Msg == "" {
				t.Errorf("Syntax = %+v, want line %d col %d path %q", got, tt.want.Line, tt.want.Col, tt.want.Path)
			}
		})
	}
}

type inner struct {
	N    int            `yaml:"n"`
	On   bool           `yaml:"on"`
	List []string       `yaml:"list"`
	Map  map[string]int `yaml:"map"`
}

type outer struct {
	Name   string  `yaml:"name"`
	Inner  *inner  `yaml:"inner"`
	Items  []inner `yaml:"items"`
	inline `yaml:",inline"`
}

type inline struct {
	Extra string `yaml:"extra"`
}

func TestFields(t *testing.T) {
	doc := "name: x\nextra: y\ninner:\n  n: many\n  on: perhaps\n  list: one\n  map: {a: 1, b: two}\nitems:\n  - n: 1\n    nn: 2\nnope: 1\n"
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	got := Fields(&n, reflect.TypeFor[outer]())
	want := []Problem{
		{4, 6, "inner.n", `want an integer, found "many"`},
		{5, 7, "inner.on", `want true or false, found "perhaps"`},
		{6, 9, "inner.list", `want a list, found "one"`},
		{7, 18, "inner.map.b", `want an integer, found "two"`},
		{10, 5, "items[0].nn", `unknown key (did you mean "n"?); known keys here: list, map, n, on`},
		{11, 1, "nope", `unknown key (did you mean "name"?); known keys here: extra, inner, items, name`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Fields:\n got %+v\nwant %+v", got, want)
	}
}

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		p    Problem
		want string
	}{
		{Problem{3, 4, "a.b", "bad"}, "f.yaml:3:4: a.b: bad"},
		{Problem{3, 0, "", "bad"}, "f.yaml:3: bad"},
		{Problem{Msg: "bad"}, "f.yaml: bad"},
	} {
		if got := tt.p.Format("f.yaml"); got != tt.want {
			t.Errorf("Format = %q, want %q", got, tt.want)
		}
	}
}

// FuzzSyntax: whatever the document, a syntax error is placed inside it.
func FuzzSyntax(f *testing.F) {
	for _, s := range []string{"a: [", "a: \"x\nb: 1\n", "a:\n  b: 1\n   c: 2\n", "- a\nb: c\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var n yaml.Node
		err := yaml.Unmarshal(data, &n)
		if err == nil {
			return
		}
		p := Syntax(data, err)
		if p.Msg == "" || p.Line < 0 || p.Col < 0 {
			t.Fatalf("Syntax = %+v", p)
		}
	})
}
