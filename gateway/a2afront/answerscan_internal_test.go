package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/capgate/capgate/gateway/answer"
)

func TestMapAnswer(t *testing.T) {
	ra, rs, _ := testIDs([][2]string{{"notes/team-standup", "rh_1"}}, []string{"notes/secret"}, false)
	fa, fs, _ := testIDs([][2]string{{"notes/team-standup", "rh_1"}}, []string{"notes/forbidden"}, true)
	tests := []struct {
		name, in, want string
		wantErr        error
	}{
		{"nothing to map keeps the text", `{"b": "x",  "a": 2}`, `{"b": "x",  "a": 2}`, nil},
		{"values mapped, order and spacing kept", `{"b": "notes/team-standup", "a": ["notes/secret", 1.50]}`,
			`{"b": "rh_1", "a": ["[resource]", 1.50]}`, nil},
		{"keys mapped too", `{"notes/team-standup":"notes/team-standup"}`, `{"rh_1":"rh_1"}`, nil},
		{"escaped id", `["notes\/team-standup","notes\u002fsecret"]`, `["rh_1","[resource]"]`, nil},
		{"every duplicate member", `{"a":"notes/secret","a":"x"}`, `{"a":"[resource]","a":"x"}`, nil},
		{"glued to a longer word", `"notes/team-standup-2"`, `"rh_1-2"`, nil},
		{"re-encoded as json.Marshal does", `"<notes/team-standup>"`, `"\u003crh_1\u003e"`, nil},
		{"refused", `{"a":"see notes/forbidden"}`, "", answer.ErrUnmappedID},
		{"refused in a duplicate", `{"a":"notes/forbidden","a":"x"}`, "", answer.ErrUnmappedID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, s := ra, rs
			if tt.wantErr != nil {
				a, s = fa, fs
			}
			got, err := answer.MapIDs(context.Background(), json.RawMessage(tt.in), s, a.known)
			if !errors.Is(err, tt.wantErr) || err == nil && string(got) != tt.want {
				t.Errorf("MapIDs(%s) = %s, %v; want %s, %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// FuzzMapAnswer: on any valid JSON, the answer pipeline's id mapping
// (MapIDs: its fast path, then mapping in place) gives the same value as
// decoding, mapping and re-encoding (mapStrings), and refuses whenever
// that refuses.
func FuzzMapAnswer(f *testing.F) {
	f.Add(`{"result":{"id":"notes/a","text":"notes/a and notes/b"}}`)
	f.Add(`{"result":"notes\/a"}`)
	f.Add(`["notes\u002fa",{"x":"notes/ab notes/a-","notes/a":"notes/c"}]`)
	f.Add(`{"a" : [ "x" , "notes/b" ] , "b" : 1e3 }`)
	a, scope, ids := testIDs([][2]string{{"notes/a", "rh_a"}, {"notes/b", "rh_b"}}, []string{"notes/c"}, true)
	f.Fuzz(func(t *testing.T, in string) {
		raw := json.RawMessage(in)
		if !json.Valid(raw) {
			return
		}
		got, err := answer.MapIDs(context.Background(), raw, scope, a.known)
		want, wantErr := mapStrings(raw, func(s string) (string, error) {
			out, refused := ids.Replace(s)
			if refused {
				return "", answer.ErrUnmappedID
			}
			return out, nil
		})
		switch {
		case errors.Is(wantErr, errKeyCollision):
			return // mapAnswer keeps both members; neither names an id
		case wantErr != nil && !errors.Is(err, answer.ErrUnmappedID):
			t.Fatalf("mapStrings refused (%v), mapAnswer gave %s, %v", wantErr, got, err)
		case err != nil:
			return // a refusal in a duplicate member that decoding drops
		case !json.Valid(got):
			t.Fatalf("not JSON: %s", got)
		case !reflect.DeepEqual(decodeAny(t, got), decodeAny(t, want)):
			t.Fatalf("mapAnswer %s, mapStrings %s", got, want)
		}
	})
}

func decodeAny(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}
