package quickstart_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

type rpcErr struct {
	Code int            `json:"code"`
	Data map[string]any `json:"data"`
}

// UnmarshalJSON reads error.data in either generation's shape: capgate's
// object, or the metadata of the ErrorInfo in A2A v1.0's typed details.
func (e *rpcErr) UnmarshalJSON(b []byte) error {
	var raw struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	e.Code = raw.Code
	if len(raw.Data) == 0 || json.Unmarshal(raw.Data, &e.Data) == nil {
		return nil
	}
	var details []struct {
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(raw.Data, &details); err != nil || len(details) == 0 {
		return fmt.Errorf("error.data is neither an object nor typed details: %s", raw.Data)
	}
	e.Data = details[0].Metadata
	return nil
}

type rpcOut struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcErr         `json:"error"`
}

type capOut struct {
	ID              string `json:"id"`
	Token           string `json:"token"`
	Holder          string `json:"holder"`
	ResourceHandles []struct {
		Handle      string `json:"handle"`
		DisplayName string `json:"displayName"`
	} `json:"resourceHandles"`
}

func rpc(t *testing.T, w *quickstart.World, agent, key, method string, params any, hdr ...string) rpcOut {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, w.URL+"/a2a/"+agent, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out rpcOut
	body, _ := io.ReadAll(resp.Body)
	// A refusal of a streaming call is a stream of one event: its answer.
	body, _ = bytes.CutPrefix(body, []byte("data: "))
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: not JSON-RPC: %v", method, err)
	}
	return out
}

func wantErr(t *testing.T, out rpcOut, code int, reason string) {
	t.Helper()
	if out.Error == nil || out.Error.Code != code || (reason != "" && out.Error.Data["reason"] != reason) {
		t.Fatalf("want error %d %s, got %+v %s", code, reason, out.Error, out.Result)
	}
}

func aliceQ1(t *testing.T, w *quickstart.World) capOut {
	t.Helper()
	out := rpc(t, w, "documents", quickstart.AliceKey, "a2a/capabilities/request", map[string]any{
		"grants": []string{"documents:read"}, "purpose": "Summarize quarterly reports",
		"resourceQuery": map[string]any{"collection": "reports", "filter": map[string]string{"quarter": "2025-Q1"}},
	})
	var res struct{ Capabilities []capOut }
	if out.Error != nil || json.Unmarshal(out.Result, &res) != nil || len(res.Capabilities) != 1 {
		t.Fatalf("request: %+v %s", out.Error, out.Result)
	}
	return res.Capabilities[0]
}

func sendParams(text string, caps []string, atts map[string]any) map[string]any {
	p := map[string]any{"message": map[string]any{"role": "user", "messageId": "m-" + text,
		"parts": []map[string]any{{"kind": "text", "text": text}}}}
	if caps != nil {
		p["capabilities"] = caps
	}
	if atts != nil {
		p["attenuations"] = atts
	}
	return p
}

func startWorld(t *testing.T) *quickstart.World {
	t.Helper()
	w, err := quickstart.Start(context.Background(), quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// summarizerCalls counts the sends that reached the summarizer.
func summarizerCalls(w *quickstart.World) int {
	n := 0
	for _, r := range w.Summarizer.Recorder().Requests() {
		if r.Method == http.MethodPost {
			n++
		}
	}
	return n
}

// TestDelegationToSummarizer is the quickstart story: alice delegates one
// handle, retrieve only, to the summarizer, which reads it through the
// gateway with its own identity; it cannot use the other handle; and it
// stops working the moment alice revokes.
func TestDelegationToSummarizer(t *testing.T) {
	w := startWorld(t)
	parent := aliceQ1(t, w)
	fin, sales := parent.ResourceHandles[0].Handle, parent.ResourceHandles[1].Handle
	out := rpc(t, w, "summarizer", quickstart.AliceKey, "message/send", sendParams("Summarize this document",
		[]string{parent.ID}, map[string]any{parent.ID: map[string]any{"resourceHandles": []string{fin}, "operations": []string{"retrieve"}}}))
	if out.Error != nil || !strings.Contains(string(out.Result), "Q1 Financial Summary") {
		t.Fatalf("delegated send: %+v %s", out.Error, out.Result)
	}
	reqs := w.Summarizer.Recorder().Requests()
	forwarded := string(reqs[len(reqs)-1].Body)
	if strings.Contains(forwarded, parent.Token) || strings.Contains(forwarded, "attenuations") {
		t.Fatalf("the parent's token or the attenuations reached the summarizer: %s", forwarded)
	}
	child := childFrom(t, forwarded)
	if child.ID == parent.ID || child.Holder != "agent:summarizer" || len(child.ResourceHandles) != 1 {
		t.Fatalf("child = %+v", child)
	}
	invoke := func(handle string) rpcOut {
		return rpc(t, w, "documents", quickstart.SummarizerKey, "a2a/skill/invoke", map[string]any{
			"skill": "retrieve_document", "capabilityId": child.ID, "capabilityToken": child.Token,
			"arguments": map[string]any{"resourceHandle": handle}})
	}
	if out := invoke(fin); out.Error != nil {
		t.Fatalf("the summarizer cannot use its child: %+v", out.Error)
	}
	wantErr(t, invoke(sales), -32045, "resource_not_permitted")
	wantErr(t, rpc(t, w, "documents", quickstart.AliceKey, "a2a/skill/invoke", map[string]any{
		"skill": "retrieve_document", "capabilityId": child.ID, "arguments": map[string]any{"resourceHandle": fin}}), -32046, "holder_mismatch")
	if out := rpc(t, w, "documents", quickstart.AliceKey, "a2a/capabilities/revoke", map[string]any{"capabilityId": parent.ID}); out.Error != nil {
		t.Fatal(out.Error)
	}
	wantErr(t, invoke(fin), -32043, "capability_revoked")
	before := summarizerCalls(w)
	wantErr(t, rpc(t, w, "summarizer", quickstart.AliceKey, "message/send", sendParams("again", []string{parent.ID}, nil)), -32043, "capability_revoked")
	if summarizerCalls(w) != before {
		t.Fatal("a refused delegation reached the summarizer")
	}
}

func childFrom(t *testing.T, forwarded string) capOut {
	t.Helper()
	var req struct {
		Params struct {
			Capabilities []capOut `json:"capabilities"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(forwarded), &req); err != nil || len(req.Params.Capabilities) != 1 {
		t.Fatalf("forwarded params carry no child capability: %s", forwarded)
	}
	return req.Params.Capabilities[0]
}

// TestDelegationRefusals: every refusal happens before anything reaches
// the summarizer.
func TestDelegationRefusals(t *testing.T) {
	w := startWorld(t)
	parent := aliceQ1(t, w)
	deep := parent
	for range 2 { // finance may delegate to depth 2
		out := rpc(t, w, "documents", quickstart.AliceKey, "a2a/capabilities/attenuate", map[string]any{"capabilityId": deep.ID, "constraints": map[string]any{}})
		var res struct{ Capabilities []capOut }
		if out.Error != nil || json.Unmarshal(out.Result, &res) != nil {
			t.Fatalf("attenuate: %+v", out.Error)
		}
		deep = res.Capabilities[0]
	}
	tests := []struct {
		name   string
		key    string
		method string
		params map[string]any
		hdr    []string
		code   int
		reason string
	}{
		{"widening attempt", quickstart.AliceKey, "message/send", sendParams("x", []string{parent.ID},
			map[string]any{parent.ID: map[string]any{"operations": []string{"retrieve", "update"}}}), nil, -32048, "attenuation_not_permitted"},
		{"depth cap", quickstart.AliceKey, "message/send", sendParams("x", []string{deep.ID}, nil), nil, -32048, "attenuation_not_permitted"},
		{"not the holder", quickstart.BobKey, "message/send", sendParams("x", []string{parent.ID}, nil), nil, -32046, "holder_mismatch"},
		{"unknown capability", quickstart.AliceKey, "SendMessage", sendParams("x", []string{"cap_nope"}, nil), nil, -32041, "capability_invalid"},
		{"attenuation for an undelegated id", quickstart.AliceKey, "message/send", sendParams("x", []string{parent.ID},
			map[string]any{"cap_other": map[string]any{}}), nil, -32602, ""},
		{"streaming to an agent without streaming", quickstart.AliceKey, "message/stream", sendParams("x", nil, nil), nil, -32004, "missing_capability"},
		{"case-variant delegation member", quickstart.AliceKey, "message/send", map[string]any{"message": map[string]any{"role": "user", "messageId": "m",
			"parts": []map[string]any{{"kind": "text", "text": "x"}}}, "Capabilities": []map[string]any{{"id": parent.ID, "token": parent.Token}}}, nil, -32602, ""},
		{"protocol version out of range", quickstart.AliceKey, "message/send", sendParams("x", nil, nil), []string{"A2A-Version", "7.0"}, -32009, "version_mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := summarizerCalls(w)
			wantErr(t, rpc(t, w, "summarizer", tt.key, tt.method, tt.params, tt.hdr...), tt.code, tt.reason)
			if summarizerCalls(w) != before {
				t.Fatal("a refused send reached the summarizer")
			}
		})
	}
}
