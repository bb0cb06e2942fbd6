package answer

import (
	"context"
	"encoding/json"
	"testing"
)

// TestChainRefusesBrokenProcessorOutput: what a processor changes into
// something that is not JSON never reaches the next processor or the
// caller.
func TestChainRefusesBrokenProcessorOutput(t *testing.T) {
	var seen []string
	record := func(_ context.Context, _ struct{}, resp json.RawMessage) (json.RawMessage, error) {
		seen = append(seen, string(resp))
		return resp, nil
	}
	tests := []struct {
		name string
		out  string
		want string
	}{
		{"not JSON", `{"result":`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":{"reason":"internal_error"}}}`},
		// id mapping turning two names into one placeholder
		{"duplicate names", `{"id":1,"result":{"m":{"[resource]":"x","[resource]":"y"}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the agent's answer does not pass the gateway's JSON checks","data":{"detail":"duplicate_key","reason":"malformed_answer"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			broken := func(context.Context, struct{}, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(tt.out), nil
			}
			p, err := New(Options{}, record, broken, record)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Unary(context.Background(), Call[struct{}]{ID: json.RawMessage("7")}, []byte(`{"id":1,"result":{}}`))
			if err != nil || string(got) != tt.want || len(seen) != 1 {
				t.Errorf("got %s, %v (processors saw %q); want %s", got, err, seen, tt.want)
			}
		})
	}
}
