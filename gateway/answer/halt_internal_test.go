package answer

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// TestEventStreamHalt: once the halt says stop, the next event of any
// kind (data, a comment, an id, a priming event) is replaced by the
// halt's refusal in the caller's shape and the stream ends; nothing of
// that event or any later one reaches the caller.
func TestEventStreamHalt(t *testing.T) {
	const first = "data: {\"id\":1,\"result\":\"ok\"}\n\n"
	halted := &jsonrpc.Error{Code: -32047, Message: "frozen", Data: map[string]any{"detail": "frozen"}}
	const refusal = "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32047,\"message\":\"frozen\",\"data\":{\"detail\":\"frozen\"}}}\n\n"
	tests := []struct {
		name  string
		next  string
		shape func(error) error
		want  string
	}{
		{"data", "data: {\"id\":1,\"result\":\"secret\"}\n\n", nil, refusal},
		{"comment only", ": secret\n\n", nil, refusal},
		{"id and event only", "event: secret\nid: 9\n\n", nil, refusal},
		{"priming event", "id: secret\ndata:\n\n", nil, refusal},
		{"unterminated", "data: {\"id\":1,\"result\":\"secret\"}", nil, refusal},
		{"shaped", "data: {\"id\":1,\"result\":\"secret\"}\n\n",
			func(error) error { return &jsonrpc.Error{Code: -32047, Message: "shaped"} },
			"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32047,\"message\":\"shaped\"}}\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop := false
			src := strings.NewReader(first + tt.next + "data: {\"id\":2,\"result\":\"later\"}\n\n")
			s := newEventStream(context.Background(), identity, strictOnly, json.RawMessage("7"), io.NopCloser(src), DefaultMaxBytes)
			s.shape = tt.shape
			s.halt = func(context.Context) error {
				if stop {
					return halted
				}
				return nil
			}
			buf := make([]byte, 4096)
			n, err := s.Read(buf)
			if err != nil || string(buf[:n]) != first {
				t.Fatalf("first event: %q, %v", buf[:n], err)
			}
			stop = true
			rest, err := io.ReadAll(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(rest); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if strings.Contains(string(rest), "secret") || strings.Contains(string(rest), "later") {
				t.Errorf("the upstream's event reached the caller: %q", rest)
			}
		})
	}
}

// TestEventStreamNoHalt: a halt that never stops changes nothing.
func TestEventStreamNoHalt(t *testing.T) {
	const in = ": ping\n\nid: 0\ndata:\n\ndata: {\"id\":1}\n\n"
	s := newEventStream(context.Background(), identity, strictOnly, json.RawMessage("7"), io.NopCloser(strings.NewReader(in)), DefaultMaxBytes)
	s.halt = func(context.Context) error { return nil }
	out, err := io.ReadAll(s)
	if err != nil || string(out) != in {
		t.Fatalf("got %q, %v; want %q", out, err, in)
	}
}
