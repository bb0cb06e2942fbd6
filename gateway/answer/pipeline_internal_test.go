package answer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/answer/answertest"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// identity passes every response as it is.
func identity(_ context.Context, resp json.RawMessage, loose bool) (json.RawMessage, bool, error) {
	return resp, loose, nil
}

// refuseSecret refuses a response that mentions "secret".
func refuseSecret(_ context.Context, resp json.RawMessage, loose bool) (json.RawMessage, bool, error) {
	if strings.Contains(string(resp), "secret") {
		return nil, false, &jsonrpc.Error{Code: -32001, Message: "Task not found"}
	}
	return resp, loose, nil
}

// strictOnly is the answer check without its log.
func strictOnly(_ context.Context, resp []byte) (bool, error) {
	s, err := newStrict()
	if err != nil {
		return false, err
	}
	return checkAnswer(resp, s)
}

func readStream(t *testing.T, run chain, in string) string {
	t.Helper()
	s := newEventStream(context.Background(), run, strictOnly, json.RawMessage("7"), io.NopCloser(strings.NewReader(in)), DefaultMaxBytes)
	out, err := io.ReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestEventStream(t *testing.T) {
	const refusedNotFound = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"Task not found\"}}\n\n"
	const refusedUpstream = "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32603,\"message\":\"upstream agent unavailable\",\"data\":{\"reason\":\"upstream_unavailable\"}}}\n\n"
	tests := []struct {
		name string
		run  chain
		in   string
		want string
	}{
		{"one event", identity, "data: {\"id\":1}\n\n", "data: {\"id\":1}\n\n"},
		{"crlf and cr line ends", identity, "event: x\r\ndata: {\"id\":1}\r\n\r\ndata: {\"id\":2}\r\r", "event: x\ndata: {\"id\":1}\n\ndata: {\"id\":2}\n\n"},
		{"multi-line data compacted", identity, "data: {\"id\":\ndata:  1}\n\n", "data: {\"id\":1}\n\n"},
		{"comments and kept fields", identity, ": ping\n\nid: 5\nretry: 10\ndata:{\"id\":1}\n\n", ": ping\n\nid: 5\nretry: 10\ndata: {\"id\":1}\n\n"},
		{"unknown fields dropped", identity, "Data: {\"secret\":1}\nfoo: bar\ndata: {\"id\":1}\n\n", "data: {\"id\":1}\n\n"},
		{"blank lines alone pass nothing", identity, "\n\n\ndata: {\"id\":1}\n\n", "data: {\"id\":1}\n\n"},
		{"unterminated last event processed", identity, "data: {\"id\":1}", "data: {\"id\":1}\n\n"},
		{"data without colon is data", identity, "data\ndata: {\"id\":1}\n\n", "data: {\"id\":1}\n\n"},
		{"a priming event with empty data passes", identity, "id: 0\ndata:\n\ndata: {\"id\":1}\n\n", "id: 0\ndata:\n\ndata: {\"id\":1}\n\n"},
		{"not JSON refused and ends", identity, "data: hello\n\ndata: {\"id\":1}\n\n", refusedUpstream},
		{"refusal ends the stream", refuseSecret, "data: {\"id\":1,\"result\":\"ok\"}\n\ndata: {\"id\":1,\"result\":\"secret\"}\n\ndata: {\"id\":1}\n\n",
			"data: {\"id\":1,\"result\":\"ok\"}\n\n" + refusedNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readStream(t, tt.run, tt.in); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestEventStreamPerEvent checks that an event is readable as soon as it
// has arrived, before the upstream sends anything more: the stream is
// processed event by event, never held whole.
func TestEventStreamPerEvent(t *testing.T) {
	pr, pw := io.Pipe()
	s := newEventStream(context.Background(), identity, strictOnly, nil, pr, DefaultMaxBytes)
	r := bufio.NewReader(s)
	go func() { _, _ = io.WriteString(pw, "data: {\"id\":1}\n\n") }()
	for _, want := range []string{"data: {\"id\":1}\n", "\n"} {
		if line, err := r.ReadString('\n'); err != nil || line != want {
			t.Fatalf("read %q, %v; want %q", line, err, want)
		}
	}
	go func() { _, _ = io.WriteString(pw, "data: {\"id\":2}\n\n"); _ = pw.Close() }()
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != "data: {\"id\":2}\n\n" {
		t.Fatalf("rest %q, %v", rest, err)
	}
}

func TestEventStreamTooLarge(t *testing.T) {
	in := "data: \"" + strings.Repeat("a", DefaultMaxBytes) + "\"\n\n"
	got := readStream(t, identity, in)
	if !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, `"reason":"answer_too_large"`) || strings.Contains(got, "aaaa") {
		t.Fatalf("an oversized event was not refused: %.200q", got)
	}
}

func TestProcessUnary(t *testing.T) {
	tests := []struct {
		name    string
		run     chain
		in      string
		want    string
		wantErr error
	}{
		{"object", identity, ` {"id":1, "result":{}} `, `{"id":1,"result":{}}`, nil},
		{"empty", identity, "", "", nil},
		{"array, one refused", refuseSecret, `[{"id":1,"result":1},{"id":2,"result":"secret"}]`,
			`[{"id":1,"result":1},{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found"}}]`, nil},
		{"refused without id takes the request's", refuseSecret, `{"result":"secret"}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"Task not found"}}`, nil},
		{"not JSON", identity, `<html>`, "", ErrNotJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := processUnary(context.Background(), tt.run, strictOnly, json.RawMessage("7"), []byte(tt.in))
			if !errors.Is(err, tt.wantErr) || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// FuzzEventStream feeds arbitrary upstream streams through the event
// processor and checks, with an independent client-side parser, that
// every event a client dispatches carries either a response the chain
// returned or the gateway's own refusal: nothing the chain did not see
// reaches the caller. The chain is never given data the caller's codec
// would refuse.
func FuzzEventStream(f *testing.F) {
	for _, s := range []string{
		"data: {\"id\":1}\n\n", "data: x\r\rdata: {}\r\n\r\n", ": c\ndata\ndata:[1,\ndata: 2]\n\n",
		"event: e\nid: 1\ndata: \"s\"\n\n\n", "data: {}\rdata: {}\r\r", "Data: 1\n\n", "data: {\"a\":\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var seen []string
		tag := func(_ context.Context, resp json.RawMessage, _ bool) (json.RawMessage, bool, error) {
			if err := requestCheck(resp); err != nil {
				t.Fatalf("the chain was given %q, which the request codec refuses: %v", resp, err)
			}
			seen = append(seen, string(resp))
			return fmt.Appendf(nil, `{"seen":%d}`, len(seen)-1), false, nil
		}
		out := readStream(t, tag, in)
		for i, data := range answertest.ClientEvents(out) {
			if data == "" {
				continue // an event with empty data carries nothing
			}
			var v struct {
				Seen  *int           `json:"seen"`
				Error *jsonrpc.Error `json:"error"`
			}
			if json.Unmarshal([]byte(data), &v) != nil || (v.Seen == nil && v.Error == nil) {
				t.Fatalf("event %d reached the client unprocessed: %q (output %q)", i, data, out)
			}
			if v.Seen != nil && (*v.Seen >= len(seen) || data != fmt.Sprintf(`{"seen":%d}`, *v.Seen)) {
				t.Fatalf("event %d is not what the chain returned: %q", i, data)
			}
		}
	})
}

// TestShape: a refusal the pipeline writes reaches the caller in the
// shape the call's Shape gives it, whether a processor refused or the
// answer check did; an answer that passes is not touched.
func TestShape(t *testing.T) {
	refuse := func(_ context.Context, _ struct{}, resp json.RawMessage) (json.RawMessage, error) {
		if strings.Contains(string(resp), "secret") {
			return nil, jsonrpc.NewCodeError(jsonrpc.CodeCapabilityRevoked, "")
		}
		return resp, nil
	}
	p, err := New(Options{}, refuse)
	if err != nil {
		t.Fatal(err)
	}
	c := Call[struct{}]{ID: json.RawMessage("7"), Shape: (*jsonrpc.Error).Detailed}
	tests := []struct{ name, in, want string }{
		{"passes", `{"id":7,"result":"ok"}`, `{"id":7,"result":"ok"}`},
		{"refused by a processor", `{"id":7,"result":"secret"}`, `"reason":"CAPABILITY_REVOKED"`},
		{"refused by the check", `{"id":7,"result":1,"result":2}`, `"reason":"MALFORMED_ANSWER"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Unary(context.Background(), c, []byte(tt.in))
			if err != nil || !strings.Contains(string(got), tt.want) {
				t.Errorf("got %s, %v; want it to hold %s", got, err, tt.want)
			}
		})
	}
}
