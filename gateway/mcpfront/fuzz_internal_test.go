package mcpfront

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
)

// FuzzTakeCapability: whatever params a caller sends, once the strict
// codec accepted them, the params the front forwards never hold a
// presented capability, under any spelling of _meta or of its key.
func FuzzTakeCapability(f *testing.F) {
	f.Add(`{"name":"read_file","_meta":{"dev.capgate/capability":{"capabilityToken":"SECRET"},"x":1}}`)
	f.Add(`{"_meta":{"Dev.Capgate/Capability":{"capabilityToken":"SECRET"}}}`)
	f.Add(`{"_Meta":{"dev.capgate/capability":{"capabilityToken":"SECRET"}}}`)
	f.Add(`{"_meta":{"dev.capgate/capability":{"capabilityToken":"SECRET","other":1}}}`)
	f.Fuzz(func(t *testing.T, params string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
		reqs, _, err := jsonrpc.Decode([]byte(body), jsonrpc.DefaultLimits())
		if err != nil || reqs[0].Err != nil {
			return
		}
		m, _, e := takeCapability(reqs[0])
		if e != nil {
			return
		}
		out := encodeRequest(reqs[0], m)
		var fwd struct {
			Params map[string]json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(out, &fwd); err != nil {
			t.Fatalf("forwarded body %s: %v", out, err)
		}
		for k, v := range fwd.Params {
			if !strings.EqualFold(k, "_meta") {
				continue
			}
			var meta map[string]json.RawMessage
			_ = json.Unmarshal(v, &meta)
			for mk := range meta {
				if strings.EqualFold(mk, mcp.MetaCapability) {
					t.Fatalf("the capability is forwarded in %s", out)
				}
			}
		}
	})
}

// FuzzRewriteArguments: whatever arguments a caller sends, a rewrite that
// passes names only resources of the capability, and the caller's
// handles never reach the server at the pointer.
func FuzzRewriteArguments(f *testing.F) {
	f.Add(`{"path":"rh_a"}`)
	f.Add(`{"path":["rh_a","rh_b"]}`)
	f.Add(`{"path":"corpus/x"}`)
	f.Add(`{"Path":"rh_a"}`)
	f.Add(`{"path":1}`)
	s := &enforce.Scope{
		Claims:    &captoken.Claims{Handles: []string{"rh_a", "rh_b"}},
		Resources: enforce.ResourceMap{{Handle: "rh_a", ID: "corpus/a"}, {Handle: "rh_b", ID: "corpus/b"}},
	}
	known := s.IDMap(enforce.NewCatalog(enforce.Known{IDs: []string{"corpus/secret"}}))
	ptr, _ := mcp.ParsePointer("/path")
	f.Fuzz(func(t *testing.T, args string) {
		if !json.Valid([]byte(args)) {
			return
		}
		out, r := rewriteArguments(s, known, []mcp.Pointer{ptr}, json.RawMessage(args))
		if r != nil {
			return
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("rewritten arguments %s: %v", out, err)
		}
		if bytes.Contains(out, []byte("corpus/secret")) {
			t.Fatalf("a known id passed: %s", out)
		}
		switch v := got["path"].(type) {
		case string:
			if v != "corpus/a" && v != "corpus/b" {
				t.Fatalf("path %q is not a resource of the capability", v)
			}
		case []any:
			for _, e := range v {
				if e != "corpus/a" && e != "corpus/b" {
					t.Fatalf("path %v is not a resource of the capability", e)
				}
			}
		default:
			t.Fatalf("path %v passed", got["path"])
		}
	})
}

// FuzzIsResponse: what isResponse takes for a client's response is an
// object of exactly jsonrpc "2.0", a non-null id and one of result and
// error, and never a call (a method).
func FuzzIsResponse(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	f.Add(`{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"x"}}`)
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`)
	f.Add(`{"jsonrpc":"2.0","id":null,"result":1}`)
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		if !isResponse([]byte(raw)) {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("%s taken for a response: %v", raw, err)
		}
		_, result := m["result"]
		_, failed := m["error"]
		if _, call := m["method"]; call || result == failed || len(m) != 3 || string(m["id"]) == "null" {
			t.Fatalf("%s taken for a response", raw)
		}
	})
}

// FuzzScanCapability: on params the strict codec accepted, the scan
// returns what decoding them returns, or leaves them to it.
func FuzzScanCapability(f *testing.F) {
	f.Add(`{"name":"read_file","arguments":{"path":"h"},"_meta":{"dev.capgate/capability":{"capabilityId":"c","capabilityToken":"t"}}}`)
	f.Add(`{"name":"read_file","_meta":{"dev.capgate/capability":{"capabilityToken":"SECRET"},"x":1,"a":[1, 2]}}`)
	f.Add(`{"name":"x","_meta":{"progressToken":1}}`)
	f.Add(`{"_meta":{"Dev.Capgate/Capability":{"capabilityToken":"SECRET"}}}`)
	f.Add(`{"Name":"x"}`)
	f.Add(`{"_meta":{"dev.capgate/capability":{"capabilityId":"a\u0062"}}}`)
	f.Add(`{"_meta":{"dev.capgate/capability":{}}}`)
	f.Fuzz(func(t *testing.T, params string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
		reqs, _, err := jsonrpc.Decode([]byte(body), jsonrpc.DefaultLimits())
		if err != nil || reqs[0].Err != nil || !reqs[0].ParamsChecked() {
			return
		}
		m, pc, ok := scanCapability(reqs[0].Params)
		if !ok {
			return
		}
		want, wantPC, e := decodeCapability(reqs[0].Params)
		if e != nil {
			t.Fatalf("scanned %s, which decoding refuses: %v", params, e)
		}
		if pc != wantPC || len(m) != len(want) {
			t.Fatalf("scanned %s as %v %+v, decoded as %v %+v", params, m, pc, want, wantPC)
		}
		for k, v := range want {
			if !bytes.Equal(m[k], v) {
				t.Fatalf("member %q of %s: scanned %s, decoded %s", k, params, m[k], v)
			}
		}
	})
}

// FuzzScanArguments: on arguments the strict codec accepted, the scan
// rewrites them to what rewriteArguments does, or leaves them to it.
func FuzzScanArguments(f *testing.F) {
	f.Add(`{"path":"rh_a"}`, true)
	f.Add(`{"a":1,"path":"rh_b","z":{"x":[true,null,"y"]}}`, false)
	f.Add(`{"path":"rh_a","dest":"rh_b"}`, true)
	f.Add(`{"path":"rh_a","note":"corpus/secret"}`, false)
	f.Add(`{"path":"rh_\u0061"}`, false)
	s := &enforce.Scope{
		Claims:    &captoken.Claims{Handles: []string{"rh_a", "rh_b"}},
		Resources: enforce.ResourceMap{{Handle: "rh_a", ID: "corpus/a"}, {Handle: "rh_b", ID: "corpus/b"}},
	}
	known := s.IDMap(enforce.NewCatalog(enforce.Known{IDs: []string{"corpus/secret"}}))
	path, _ := mcp.ParsePointer("/path")
	dest, _ := mcp.ParsePointer("/dest")
	f.Fuzz(func(t *testing.T, args string, two bool) {
		reqs, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":`+args+`}`), jsonrpc.DefaultLimits())
		if err != nil || reqs[0].Err != nil || !reqs[0].ParamsChecked() {
			return
		}
		ptrs := []mcp.Pointer{path}
		if two {
			ptrs = append(ptrs, dest)
		}
		out, ok := scanArguments(s, known, ptrs, reqs[0].Params)
		if !ok {
			return
		}
		want, r := rewriteArguments(s, known, ptrs, reqs[0].Params)
		if r != nil {
			t.Fatalf("scanned %s, which rewriting refuses: %v", args, r.Message)
		}
		var got, wantDoc any
		if json.Unmarshal(out, &got) != nil || json.Unmarshal(want, &wantDoc) != nil || !reflect.DeepEqual(got, wantDoc) {
			t.Fatalf("%s: scanned %s, rewritten %s", args, out, want)
		}
	})
}
