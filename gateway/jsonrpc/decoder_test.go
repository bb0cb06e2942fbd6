package jsonrpc

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// FuzzDecoder holds a Decoder, reused from body to body as on the hot
// path, equal to Decode: the same requests, the same batch flag, the same
// error, whatever the bodies before it left in its scratch memory.
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{
		invoke(`{"resourceHandle":"rh_001"}`), invoke(wideObject(40, "K3")), batchOf(3),
		`{"jsonrpc":"2.0","method":"x","id":1,"Method":"y"}`, `[{"a":1,"A":2}]`, `[]`, `{`, "\"\xff\"",
	} {
		f.Add([]byte(s))
	}
	lim := Limits{MaxBodyBytes: 1 << 16, MaxBatch: 8, MaxDepth: 16}
	d, err := NewDecoder(lim)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// A wide body first, so that the scratch memory holds names.
		if _, _, err := d.Decode([]byte(invoke(wideObject(30, "Z")))); err != nil {
			t.Fatal(err)
		}
		got, gotBatch, gotErr := d.Decode(body)
		want, wantBatch, wantErr := Decode(body, lim)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || gotBatch != wantBatch || !sameRequests(got, want) {
			t.Fatalf("Decoder: %v %v %v\nDecode:  %v %v %v", got, gotBatch, gotErr, want, wantBatch, wantErr)
		}
	})
}

// sameRequests compares decoded requests, their errors by message.
func sameRequests(a, b []Request) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if fmt.Sprint(x.Err) != fmt.Sprint(y.Err) {
			return false
		}
		x.Err, y.Err = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func TestNewDecoderRefusesInvalidLimits(t *testing.T) {
	if _, err := NewDecoder(Limits{MaxBodyBytes: 0, MaxBatch: 1, MaxDepth: 1}); !errors.Is(err, ErrInvalidLimits) {
		t.Fatalf("NewDecoder = %v, want ErrInvalidLimits", err)
	}
}
