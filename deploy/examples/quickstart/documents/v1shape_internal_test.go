package documents

import (
	"encoding/json"
	"testing"
)

func TestV1Response(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wrapped bool
		want    string
	}{
		{"message", `{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"hi"},{"kind":"data","data":{"a":1}}]}}`, true,
			`{"id":1,"jsonrpc":"2.0","result":{"message":{"messageId":"m","parts":[{"text":"hi"},{"data":{"a":1}}],"role":"ROLE_AGENT"}}}`},
		{"task, wrapped", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","status":{"state":"input-required","message":{"kind":"message","role":"agent","parts":[]}},` +
			`"history":[{"kind":"message","role":"user","parts":[{"kind":"file","file":{"uri":"https://x/y","mimeType":"text/plain","name":"y"}}]}],"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"r"}]}]}}`, true,
			`{"id":1,"jsonrpc":"2.0","result":{"task":{"artifacts":[{"artifactId":"a","parts":[{"text":"r"}]}],"history":[{"parts":[{"filename":"y","mediaType":"text/plain","url":"https://x/y"}],"role":"ROLE_USER"}],` +
				`"id":"t","status":{"message":{"parts":[],"role":"ROLE_AGENT"},"state":"TASK_STATE_INPUT_REQUIRED"}}}}`},
		{"task, bare", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","status":{"state":"unknown"}}}`, false,
			`{"id":1,"jsonrpc":"2.0","result":{"id":"t","status":{"state":"TASK_STATE_UNSPECIFIED"}}}`},
		{"status update", `{"jsonrpc":"2.0","id":"s","result":{"kind":"status-update","taskId":"t","contextId":"c","final":true,"status":{"state":"completed"}}}`, true,
			`{"id":"s","jsonrpc":"2.0","result":{"statusUpdate":{"contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"taskId":"t"}}}`},
		{"artifact update", `{"jsonrpc":"2.0","id":"s","result":{"kind":"artifact-update","taskId":"t","artifact":{"artifactId":"a","parts":[{"kind":"file","file":{"bytes":"aGk="}}]},"lastChunk":true}}`, true,
			`{"id":"s","jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"raw":"aGk="}]},"lastChunk":true,"taskId":"t"}}}`},
		{"error unchanged", `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found"}}`, true,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found"}}`},
		{"unknown kind unchanged", `{"jsonrpc":"2.0","id":1,"result":{"kind":"other"}}`, true, `{"jsonrpc":"2.0","id":1,"result":{"kind":"other"}}`},
		{"not JSON unchanged", `nope`, true, `nope`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(v1Response([]byte(tt.in), tt.wrapped)); got != tt.want {
				t.Errorf("got\n %s\nwant\n %s", got, tt.want)
			}
		})
	}
}

func FuzzV1Response(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","status":{"state":"working"},"history":[{"parts":[{"kind":"file","file":{}}]}]}}`), true)
	f.Add([]byte(`{"result":{"kind":"status-update","status":null}}`), false)
	f.Add([]byte(`{"result":[]}`), true)
	f.Fuzz(func(t *testing.T, in []byte, wrapped bool) {
		out := v1Response(in, wrapped)
		if json.Valid(in) && !json.Valid(out) {
			t.Fatalf("valid %s became invalid %s", in, out)
		}
	})
}
