package a2afront

import (
	"bytes"
	"encoding/json"
	"testing"
)

// assertSameForwardedBody checks appendInvokeRequest against encodeRequest.
func assertSameForwardedBody(t *testing.T, id json.RawMessage, method string, p forwardedParams) {
	t.Helper()
	want := encodeRequest(id, method, p)
	if got := appendInvokeRequest(nil, id, method, p); !bytes.Equal(got, want) {
		t.Fatalf("forwarded body differs:\n got %s\nwant %s", got, want)
	}
}

func TestAppendInvokeRequest(t *testing.T) {
	tests := []struct {
		name string
		id   string
		p    forwardedParams
	}{
		{"typical", `2`, forwardedParams{Skill: "retrieve_document", CapabilityID: "cap_1",
			Arguments: map[string]json.RawMessage{"resourceId": json.RawMessage(`"doc-17"`), "format": json.RawMessage(`"md"`)}}},
		{"no arguments", `"a"`, forwardedParams{Skill: "s", CapabilityID: "c"}},
		{"empty arguments", `null`, forwardedParams{Skill: "s", Arguments: map[string]json.RawMessage{}}},
		{"escapes and whitespace", `"<&>"`, forwardedParams{Skill: "a\"b\\<c>\u2028é\x01", CapabilityID: "&",
			Arguments: map[string]json.RawMessage{
				"<k>":   json.RawMessage(" { \"a\" : [ 1 , \"<x> \u2029\" ] }\n"),
				"plain": json.RawMessage(`[1,2,{"b":true}]`),
				"é":     json.RawMessage(`"\u00e9 é"`),
			}}},
		{"many arguments", `1e3`, forwardedParams{Skill: "s", Arguments: map[string]json.RawMessage{
			"a": nil, "b": json.RawMessage(`1`), "c": json.RawMessage(`2`), "d": json.RawMessage(`3`),
			"e": json.RawMessage(`4`), "f": json.RawMessage(`5`), "g": json.RawMessage(`6`),
			"h": json.RawMessage(`7`), "i": json.RawMessage(`8`), "j": json.RawMessage(`9`),
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertSameForwardedBody(t, json.RawMessage(tt.id), "a2a/skill/invoke", tt.p)
		})
	}
}

// FuzzAppendInvokeRequest: for any skill, capability id and argument
// value, the spliced body is encoding/json's.
func FuzzAppendInvokeRequest(f *testing.F) {
	f.Add("retrieve_document", "cap_1", "k", ` {"a" : "<b>"} `)
	f.Add("\u2028", "\xff", "<", `"\u00e9"`)
	f.Fuzz(func(t *testing.T, skill, capID, key, value string) {
		if !json.Valid([]byte(value)) {
			return
		}
		assertSameForwardedBody(t, json.RawMessage(`7`), "a2a/skill/invoke", forwardedParams{
			Skill: skill, CapabilityID: capID,
			Arguments: map[string]json.RawMessage{key: json.RawMessage(value), "z": json.RawMessage(`1`)},
		})
	})
}
