package jsonrpc

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestRequestUnmarshalParams: params decoded from a Decoded request are
// refused for every reason UnmarshalParams refuses them, by Decode (for
// the text checks it ran over the whole body) or by the method.
func TestRequestUnmarshalParams(t *testing.T) {
	for _, tt := range paramsCases() {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"m","params":` + tt.raw + `}`
			reqs, _, err := Decode([]byte(body), DefaultLimits())
			if err == nil && reqs[0].Err != nil {
				err = reqs[0].Err
			}
			if err == nil {
				var p invokeParams
				err = reqs[0].UnmarshalParams(&p)
				if err != nil && !errors.Is(err, ErrInvalidParams) {
					t.Fatalf("error = %v, does not wrap %v", err, ErrInvalidParams)
				}
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("error = %v, want none", err)
			case tt.wantErr != nil && err == nil:
				t.Fatalf("accepted, want %v", tt.wantErr)
			case tt.wantErr != ErrInvalidParams && tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestRequestUnmarshalParamsReplaced: params replaced after Decode are
// checked in full again.
func TestRequestUnmarshalParamsReplaced(t *testing.T) {
	reqs, _, err := Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"skill":"a"}}`), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{`{"skill":"a","skill":"b"}`, `{"skill":"a","SKILL":"b"}`, `{"skill":"a"`} {
		r := reqs[0]
		r.Params = json.RawMessage(raw)
		var p invokeParams
		if err := r.UnmarshalParams(&p); !errors.Is(err, ErrInvalidParams) {
			t.Errorf("UnmarshalParams(%s) error = %v, want %v", raw, err, ErrInvalidParams)
		}
	}
	r := reqs[0]
	r.Params = r.Params[:len(r.Params)-1] // same start, other bytes
	var p invokeParams
	if err := r.UnmarshalParams(&p); !errors.Is(err, ErrParse) {
		t.Errorf("truncated params error = %v, want %v", err, ErrParse)
	}
}

// BenchmarkUnmarshalParams decodes the params of a typical invoke, from
// raw bytes and from a Decoded request.
func BenchmarkUnmarshalParams(b *testing.B) {
	type args struct {
		ResourceHandle string         `json:"resourceHandle"`
		Format         string         `json:"format"`
		MaxLength      int            `json:"maxLength"`
		Sections       []string       `json:"sections"`
		Options        map[string]any `json:"options"`
	}
	type params struct {
		Skill        string            `json:"skill"`
		CapabilityID string            `json:"capabilityId"`
		Arguments    args              `json:"arguments"`
		Metadata     map[string]string `json:"metadata"`
	}
	reqs, _, err := Decode(typicalInvoke, DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p params
			if err := UnmarshalParams(reqs[0].Params, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p params
			if err := reqs[0].UnmarshalParams(&p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
