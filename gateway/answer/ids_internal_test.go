package answer

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// TestMapIDsOnePass: the answer is searched once from left to right, and
// each literal an id starts in is mapped, whatever came before it.
func TestMapIDsOnePass(t *testing.T) {
	c := enforce.NewCatalog(enforce.Known{IDs: []string{"reports/q1", "reports/q2", "reports/x", `x"`}, Placeholder: "[resource]"})
	refuse := enforce.NewCatalog(enforce.Known{IDs: []string{"reports/x"}, Refuse: true})
	tests := []struct {
		name, in, want string
		c              *enforce.Catalog
		wantErr        error
	}{
		{"none", `{"a":"b","c":[1,"d"]}`, `{"a":"b","c":[1,"d"]}`, c, nil},
		{"second and fourth literals", `["a","reports/q1","b","x reports/x y"]`, `["a","rh_1","b","x [resource] y"]`, c, nil},
		{"key and value", `{"reports/q2":"reports/q1"}`, `{"rh_2":"rh_1"}`, c, nil},
		{"an id across a closing quote is no id", `["reports/x","x","reports/q2"]`, `["[resource]","x","rh_2"]`, c, nil},
		{"escaped after plain", `["reports/q1","reports\/q2"]`, `["rh_1","rh_2"]`, c, nil},
		{"escaped only", `["reports\/q2"]`, `["rh_2"]`, c, nil},
		{"refused late", `["a","b","reports/q1 reports/x"]`, "", refuse, ErrUnmappedID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MapIDs(json.RawMessage(tt.in), benchScope(), tt.c)
			if !errors.Is(err, tt.wantErr) || err == nil && string(got) != tt.want {
				t.Errorf("MapIDs(%s) = %s, %v; want %s, %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// slowMapAnswer is mapAnswer without its fast paths: every literal
// decoded, mapped by Replace and encoded again when it changed.
func slowMapAnswer(raw []byte, ids *enforce.IDMap) ([]byte, error) {
	var out []byte
	last := 0
	lits := jsonrpc.WalkStrings(raw)
	for start, end, ok := lits.Next(); ok; start, end, ok = lits.Next() {
		s, changed, refused := mapLiteral(raw[start:end], false, ids)
		if refused {
			return nil, ErrUnmappedID
		}
		if changed {
			out = jsonrpc.AppendString(append(out, raw[last:start]...), s)
			last = end
		}
	}
	return append(out, raw[last:]...), nil
}

// FuzzMapAnswer: on any valid JSON, mapAnswer (which skips literals no id
// starts in and maps plain literals in place) writes exactly what
// decoding, replacing and encoding every literal writes.
func FuzzMapAnswer(f *testing.F) {
	for _, s := range []string{`["a","reports/q1","b","x reports/x y"]`, `{"reports/q2":"reports/q1 <b>"}`,
		`["reports\/q2 reports/q1", "é reports/q1", "reports/x\""]`, `"reports/q1reports/q2"`} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, refuse bool) {
		if !json.Valid([]byte(s)) {
			return
		}
		c := enforce.NewCatalog(enforce.Known{IDs: []string{"reports/q1", "reports/q2", "reports/x", `x"`, "a<b"}, Placeholder: "[resource]", Refuse: refuse})
		ids := benchScope().IDMap(c)
		got, err := mapAnswer([]byte(s), ids, indexFrom([]byte(s), ids, 0))
		want, wantErr := slowMapAnswer([]byte(s), ids)
		if !errors.Is(err, wantErr) || err == nil && string(got) != string(want) {
			t.Fatalf("mapAnswer(%s) = %s, %v; decoding every literal gives %s, %v", s, got, err, want, wantErr)
		}
	})
}
