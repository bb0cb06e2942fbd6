package client

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecodeResponse: whatever a gateway answers, decodeResponse returns
// exactly one of a result that is valid JSON, an *RPCError, or an error
// wrapping one of the package's technical sentinels; it never panics.
func FuzzDecodeResponse(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"capabilities":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32043,"message":"revoked","data":{"reason":"capability_revoked"}}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32043,"data":{"reason":7}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`{"jsonrpc":"2.0","id":1,"result":{}} trailing`,
		`<html>`, ``,
	} {
		f.Add(200, []byte(seed))
		f.Add(413, []byte(seed))
	}
	f.Fuzz(func(t *testing.T, status int, raw []byte) {
		res, err := decodeResponse(status, raw, 1)
		if err == nil {
			if !json.Valid(res) {
				t.Fatalf("result %q is not JSON", res)
			}
			return
		}
		if _, ok := errors.AsType[*RPCError](err); ok {
			return
		}
		for _, s := range []error{ErrUnauthenticated, ErrRedirect, ErrHTTPStatus, ErrMalformedResponse} {
			if errors.Is(err, s) {
				return
			}
		}
		t.Fatalf("error %v wraps no sentinel", err)
	})
}

// FuzzUnsafeInspect: any string either decodes to claims or fails with an
// error; it never panics.
func FuzzUnsafeInspect(f *testing.F) {
	f.Add("eyJhbGciOiJFZERTQSIsInR5cCI6ImNhcCtqd3QifQ.eyJjaWQiOiJjYXBfMSIsImV4cCI6MX0.c2ln")
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		claims, err := UnsafeInspect(token)
		if (claims == nil) == (err == nil) {
			t.Fatalf("claims %v, err %v: want exactly one", claims, err)
		}
	})
}
