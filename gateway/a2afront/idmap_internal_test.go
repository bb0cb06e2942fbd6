package a2afront

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestReplaceIDs(t *testing.T) {
	pairs := []idPair{
		{old: "notes/team-standup-2", new: "rh_2"},
		{old: "notes/team-standup", new: "rh_1"},
		{old: "notes/secret", new: "[resource]"},
		{old: "notes/forbidden", refuse: true},
	}
	tests := []struct {
		name, in, want string
		refused        bool
	}{
		{"whole string", "notes/team-standup", "rh_1", false},
		{"in a sentence", "opened notes/team-standup.", "opened rh_1.", false},
		{"longest wins", "notes/team-standup-2 and notes/team-standup", "rh_2 and rh_1", false},
		{"glued to a longer word", "notes/team-standup-old", "rh_1-old", false},
		{"preceded by a path", "x/notes/team-standup", "x/rh_1", false},
		{"refused inside a mapped id's text", "notes/forbidden2", "", true},
		{"unmapped redacted", "notes/secret: 42", "[resource]: 42", false},
		{"unmapped refused", "see notes/forbidden", "", true},
		{"refused even beside a NUL the agent sent", "see notes/forbidden\x00", "", true},
		{"nothing", "hello", "hello", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, refused := replaceIDs(tt.in, pairs)
			if got != tt.want || refused != tt.refused {
				t.Errorf("replaceIDs(%q) = %q, %v; want %q, %v", tt.in, got, refused, tt.want, tt.refused)
			}
		})
	}
}

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
// (mapAnswer) is JSON and names no real id of the capability, in a value
// or a key, however the agent escaped it.
func FuzzMapIDs(f *testing.F) {
	f.Add(`{"result":{"id":"notes/a","text":"notes/a and notes/b"}}`)
	f.Add(`{"result":"notes\/a"}`)
	f.Add(`["notes\u002fa",{"x":"notes/ab notes/a-"}]`)
	f.Add(`{"notes/a":{"notes\/b":"\u0000notes/a"}}`)
	ids := []string{"notes/a", "notes/b"}
	pairs := []idPair{{old: "notes/a", new: "rh_a"}, {old: "notes/b", new: "[resource]"}}
	f.Fuzz(func(t *testing.T, answer string) {
		if !json.Valid([]byte(answer)) {
			return
		}
		out, err := mapAnswer(json.RawMessage(answer), pairs)
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
