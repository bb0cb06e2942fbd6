package a2afront

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// invokeParamsSeeds are invocation params the scan must read exactly as
// the strict decoder does, or hand over to it.
var invokeParamsSeeds = append([]string{
	`{"skill":"retrieve_document","arguments":{"resourceHandle":"rh_1","n":1.5e3,"o":{"a":[1,"x"]},"z":null},"capabilityId":"cap_1","capabilityToken":"a.b.c"}`,
	` { "skill" : "s" , "arguments" : { "a" : 1 , "b" : "\u0041" } } `,
	`{"skill":"s","arguments":{}}`,
	`{"skill":"s","arguments":null}`,
	`{"skill":"s","arguments":[]}`,
	`{"skill":"s","arguments":{"r\u0065sourceHandle":"rh_1"}}`,
	`{"skill":"s","arguments":{"é":1}}`,
	`{"skill":"s\"t"}`,
	`{"skill":"\ud83d\ude00"}`,
	`{"skill":"s","unknown":1}`,
	`{"skill":"s","capabilityToken":null}`,
	`[]`,
	`"s"`,
}, invocationSeeds...)

// TestPlainInvokeParams pins what the scan reads and what it hands over.
func TestPlainInvokeParams(t *testing.T) {
	tests := []struct {
		params string
		plain  bool
	}{
		{invokeParamsSeeds[0], true},
		{invokeParamsSeeds[1], true},
		{`{"skill":"s","arguments":{}}`, true},
		{`{}`, true},
		{`{"skill":"s","arguments":null}`, false},
		{`{"skill":"s","arguments":{"r\u0065sourceHandle":"rh_1"}}`, false},
		{`{"skill":"s","metadata":{}}`, false},
		{`{"skill":"s","capabilityID":"cap_1"}`, false},
		{`{"skill":"s","capabilityId":7}`, false},
		{`{"skill":"s","unknown":1}`, false},
		{`[]`, false},
	}
	for _, tt := range tests {
		_, plain := plainInvokeParams([]byte(tt.params))
		if plain != tt.plain {
			t.Errorf("%s: plain = %v, want %v", tt.params, plain, tt.plain)
		}
		if compared := checkInvokeParams(t, tt.params); compared != tt.plain {
			t.Errorf("%s: compared with the strict decoder = %v, want %v", tt.params, compared, tt.plain)
		}
	}
	for _, s := range invokeParamsSeeds {
		checkInvokeParams(t, s)
	}
}

// checkInvokeParams decodes params inside a checked request both ways and
// fails when the scan reads something the strict decoder does not. It
// reports whether the scan read the params, so that the two were compared.
func checkInvokeParams(t *testing.T, params string) bool {
	t.Helper()
	reqs, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":`+params+`}`), jsonrpc.DefaultLimits())
	if err != nil || len(reqs) != 1 || reqs[0].Err != nil || !reqs[0].ParamsChecked() {
		return false
	}
	got, plain := plainInvokeParams(reqs[0].Params)
	if !plain {
		return false
	}
	var want sep.InvokeParams
	if err := jsonrpc.UnmarshalParams(reqs[0].Params, &want); err != nil {
		t.Fatalf("%s: the scan read %+v, the strict decoder refused: %v", params, got, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: the scan read\n%#v\nthe strict decoder\n%#v", params, got, want)
	}
	return true
}

// FuzzPlainInvokeParams: whatever the params, the scan either hands over
// or reads exactly what the strict decoder reads.
func FuzzPlainInvokeParams(f *testing.F) {
	for _, s := range invokeParamsSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		checkInvokeParams(t, params)
	})
}

// FuzzStringValue: on any valid JSON value, stringValue decodes what
// json.Unmarshal into a string decodes, and fails where it fails.
func FuzzStringValue(f *testing.F) {
	for _, s := range []string{`"rh_1"`, `null`, ` "a" `, `"\u00e9\n"`, `"é"`, `1`, `["rh_1"]`, `{}`, `true`, `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		var want string
		wantErr := json.Unmarshal([]byte(raw), &want)
		got, ok := stringValue([]byte(raw))
		if ok != (wantErr == nil) || got != want {
			t.Fatalf("%s: stringValue %q, %v; json.Unmarshal %q, %v", raw, got, ok, want, wantErr)
		}
	})
}
