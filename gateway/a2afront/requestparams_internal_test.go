package a2afront

import (
	"reflect"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// requestParamsSeeds are issuance params the scan must read exactly as
// the strict decoder does, or hand over to it.
var requestParamsSeeds = []string{
	`{"grants":["documents:read"],"purpose":"loadtest","resourceQuery":{"collection":"reports"}}`,
	` { "grants" : [ "a" , "b\u0041" ] , "operations" : [ ] , "resourceQuery" : { "filter" : { "quarter" : "2025-Q1" } } } `,
	`{"grants":[],"resourceQuery":{}}`,
	`{"approvalId":"apr_1"}`,
	`{"grants":["a"],"resourceQuery":{"collection":"r","filter":{}}}`,
	`{"grants":null}`,
	`{"grants":["a",1]}`,
	`{"grants":"a"}`,
	`{"grants":["a"],"resourceQuery":null}`,
	`{"grants":["a"],"resourceQuery":{"collection":"r","Filter":{}}}`,
	`{"grants":["a"],"resourceQuery":{"filter":{"q":1}}}`,
	`{"grants":["a"],"resourceQuery":{"filter":{"q\u0031":"x"}}}`,
	`{"grants":["a"],"expires":"2030-01-01T00:00:00Z"}`,
	`{"grants":["a"],"Grants":["b"]}`,
	`{"grants":["a"],"unknown":1}`,
	`{"gr\u0061nts":["a"]}`,
	`{}`,
	`[]`,
}

// TestPlainRequestParams pins what the scan reads and what it hands over.
func TestPlainRequestParams(t *testing.T) {
	tests := []struct {
		params string
		plain  bool
	}{
		{requestParamsSeeds[0], true},
		{requestParamsSeeds[1], true},
		{`{"grants":[],"resourceQuery":{}}`, true},
		{`{"approvalId":"apr_1"}`, true},
		{`{}`, true},
		{`{"grants":null}`, false},
		{`{"grants":["a",1]}`, false},
		{`{"grants":["a"],"expires":"2030-01-01T00:00:00Z"}`, false},
		{`{"grants":["a"],"resourceQuery":{"collection":"r","Filter":{}}}`, false},
		{`{"grants":["a"],"unknown":1}`, false},
		{`[]`, false},
	}
	for _, tt := range tests {
		if _, plain := plainRequestParams([]byte(tt.params)); plain != tt.plain {
			t.Errorf("%s: plain = %v, want %v", tt.params, plain, tt.plain)
		}
		if compared := compareRequestParams(t, tt.params); compared != tt.plain {
			t.Errorf("%s: compared with the strict decoder = %v, want %v", tt.params, compared, tt.plain)
		}
	}
	for _, s := range requestParamsSeeds {
		compareRequestParams(t, s)
	}
}

// compareRequestParams decodes params inside a checked request both ways
// and fails when the scan reads something the strict decoder does not; it
// reports whether the scan read them.
func compareRequestParams(t *testing.T, params string) bool {
	t.Helper()
	reqs, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":`+params+`}`), jsonrpc.DefaultLimits())
	if err != nil || len(reqs) != 1 || reqs[0].Err != nil || !reqs[0].ParamsChecked() {
		return false
	}
	got, plain := plainRequestParams(reqs[0].Params)
	if !plain {
		return false
	}
	var want sep.RequestParams
	if err := jsonrpc.UnmarshalParams(reqs[0].Params, &want); err != nil {
		t.Fatalf("%s: the scan read %+v, the strict decoder refused: %v", params, got, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: the scan read\n%#v\nthe strict decoder\n%#v", params, got, want)
	}
	return true
}

// FuzzPlainRequestParams: whatever the params, the scan either hands over
// or reads exactly what the strict decoder reads.
func FuzzPlainRequestParams(f *testing.F) {
	for _, s := range requestParamsSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		compareRequestParams(t, params)
	})
}
