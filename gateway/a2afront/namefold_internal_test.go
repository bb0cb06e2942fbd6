package a2afront

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/answer"
)

// TestMappedNamesCollideRefused: id mapping rewrites member names too, so
// two out-of-scope catalog ids used as names become one placeholder; the
// answer is then refused by the check every processed answer passes, not
// sent with a name twice.
func TestMappedNamesCollideRefused(t *testing.T) {
	a, scope, _ := testIDs([][2]string{{"notes/c", "rh_c"}}, []string{"notes/a", "notes/b"}, false)
	in := []byte(`{"jsonrpc":"2.0","id":1,"result":{"data":{"notes/a":1,"notes/b":2}}}`)
	out, err := answer.MapIDs(context.Background(), in, scope, a.known)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{"[resource]":1,"[resource]":2}`) {
		t.Fatalf("MapIDs = %s; want both names mapped", out)
	}
	mapIDs := func(ctx context.Context, _ struct{}, resp json.RawMessage) (json.RawMessage, error) {
		return answer.MapIDs(ctx, resp, scope, a.known)
	}
	p, err := answer.New(answer.Options{}, mapIDs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Unary(context.Background(), answer.Call[struct{}]{ID: json.RawMessage("1")}, in)
	if err != nil || !strings.Contains(string(got), `"reason":"malformed_answer"`) || !strings.Contains(string(got), `"detail":"duplicate_key"`) {
		t.Fatalf("the pipeline gave %s, %v; want the answer refused as malformed (duplicate_key)", got, err)
	}
}
