package a2afront

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/answer"
)

func TestMapStrings(t *testing.T) {
	upper := func(s string) (string, error) { return strings.ToUpper(s), nil }
	errBoom := errors.New("boom")
	tests := []struct {
		name, in, want string
		fn             func(string) (string, error)
		wantErr        error
	}{
		{"nested, keys too", `{"a":["x",{"b":"y"}],"n":1.50,"k":null}`, `{"A":["X",{"B":"Y"}],"K":null,"N":1.50}`, upper, nil},
		{"keys that collide", `{"a":1,"A":2}`, "", upper, errKeyCollision},
		{"escaped", `"a\/b <c>"`, `"A/B <C>"`, upper, nil},
		{"unchanged keeps the text", `{"b": "1",  "a": 2}`, `{"b": "1",  "a": 2}`, func(s string) (string, error) { return s, nil }, nil},
		{"error", `["x"]`, "", func(string) (string, error) { return "", errBoom }, errBoom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mapStrings(json.RawMessage(tt.in), tt.fn)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if err == nil && string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// FuzzMapIDs: whatever an agent answers, the answer as mapIDs maps it
// (answer.MapIDs) is JSON and names no real id of the capability, in a value
// or a key, however the agent escaped it.
func FuzzMapIDs(f *testing.F) {
	f.Add(`{"result":{"id":"notes/a","text":"notes/a and notes/b"}}`)
	f.Add(`{"result":"notes\/a"}`)
	f.Add(`["notes\u002fa",{"x":"notes/ab notes/a-"}]`)
	f.Add(`{"notes/a":{"notes\/b":"\u0000notes/a"}}`)
	ids := []string{"notes/a", "notes/b"}
	a, scope, _ := testIDs([][2]string{{"notes/a", "rh_a"}}, []string{"notes/b"}, false)
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		out, err := answer.MapIDs(context.Background(), json.RawMessage(in), scope, a.known)
		if err != nil {
			t.Fatalf("no pair refuses, yet: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("not JSON: %s", out)
		}
		var v any
		_ = json.Unmarshal(out, &v)
		walkStrings(v, func(s string) (string, error) {
			for _, id := range ids {
				if strings.Contains(s, id) {
					t.Errorf("%q survives in %q", id, s)
				}
			}
			return s, nil
		})
	})
}
