package summarizer_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/deploy/examples/quickstart/summarizer"
)

// delegated is one minted child capability in the SEP issuance shape.
func delegated(id, token string, handles ...string) map[string]any {
	hs := make([]any, len(handles))
	names := map[string]string{"rh_001": "Q1 Financial Summary", "rh_002": "Q1 Sales Report", "rh_revoked": "Q2 Financial Summary"}
	for i, h := range handles {
		hs[i] = map[string]any{"handle": h, "displayName": names[h]}
	}
	return map[string]any{
		"id": id, "grant": "documents:read", "token": token, "resourceHandles": hs,
		"operations": []string{"retrieve"}, "expires": "2025-01-09T12:35:00Z",
	}
}

// sendIn builds send params for method in its generation's message shape.
func sendIn(method, text string, caps []any) map[string]any {
	var msg map[string]any
	switch method {
	case "SendMessage":
		msg = map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	case "tasks/send", "a2a/task/send":
		msg = map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}}
	default:
		msg = map[string]any{"messageId": "m1", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}}
	}
	params := map[string]any{"message": msg}
	if caps != nil {
		params["capabilities"] = caps
	}
	return params
}

var sendMethods = []string{"SendMessage", "message/send", "tasks/send", "a2a/task/send"}

func TestDelegatedSendEveryGeneration(t *testing.T) {
	for _, method := range sendMethods {
		t.Run(method, func(t *testing.T) {
			gw := newFakeGateway(t)
			_, srv := newAgent(t, gw.srv.URL+"/a2a/documents")
			caps := []any{delegated("cap_child1", "tok-child-1", "rh_001", "rh_002")}
			// The caller's own credential reaches the summarizer; it must never be replayed.
			resp := call(t, srv.URL, method, sendIn(method, "Summarize these", caps),
				http.Header{"Authorization": {"Bearer alice-dev-key"}})
			got := decodeAnswer(t, resp).text()
			want := "Summaries of 2 delegated document(s):\n" +
				"- Q1 Financial Summary: Q1 revenue grew 12%.\n" +
				"- Q1 Sales Report: Q1 sales closed 148 accounts."
			if got != want {
				t.Errorf("answer\n got %q\nwant %q", got, want)
			}
			calls := gw.Calls()
			if len(calls) != 2 {
				t.Fatalf("gateway saw %d calls, want 2", len(calls))
			}
			for i, h := range []string{"rh_001", "rh_002"} {
				c := calls[i]
				if c.Method != "a2a/skill/invoke" || c.Params.Skill != "retrieve_document" ||
					c.Params.Arguments["resourceHandle"] != h || len(c.Params.Arguments) != 1 ||
					c.Params.CapabilityID != "cap_child1" || c.Params.CapabilityToken != "tok-child-1" {
					t.Errorf("call %d = %+v", i, c)
				}
				if c.Authorization != "Bearer "+devKey {
					t.Errorf("call %d Authorization = %q, want the summarizer's own key", i, c.Authorization)
				}
			}
		})
	}
}

func TestRefusalIsReportedNotFailed(t *testing.T) {
	gw := newFakeGateway(t)
	_, srv := newAgent(t, gw.srv.URL)
	caps := []any{
		delegated("cap_a", "tok-a", "rh_001", "rh_revoked"),
		delegated("cap_b", "tok-b", "rh_noreason", "rh_500"),
	}
	resp := call(t, srv.URL, "message/send", sendIn("message/send", "go", caps), nil)
	a := decodeAnswer(t, resp)
	golden(t, "mixed_answer.golden.txt", []byte(a.text()+"\n"))
	for _, want := range []string{"refused (capability_revoked)", "refused (resource not permitted)", "failed (HTTP 500)"} {
		if !strings.Contains(a.text(), want) {
			t.Errorf("answer lacks %q:\n%s", want, a.text())
		}
	}
	if len(a.Parts) != 2 || a.Parts[1].Kind != "data" {
		t.Fatalf("want a text and a data part, got %+v", a.Parts)
	}
	docs, _ := a.Parts[1].Data["documents"].([]any)
	if len(docs) != 4 {
		t.Fatalf("data.documents has %d entries, want 4", len(docs))
	}
	second := docs[1].(map[string]any)
	if second["refused"] != true || second["reason"] != "capability_revoked" || second["capabilityId"] != "cap_a" {
		t.Errorf("second outcome = %v", second)
	}
	if strings.Contains(string(resp.Result), "tok-a") || strings.Contains(string(resp.Result), "tok-b") {
		t.Error("a capability token was echoed in the answer")
	}
}

func TestEchoWithoutCapabilities(t *testing.T) {
	gw := newFakeGateway(t)
	_, srv := newAgent(t, gw.srv.URL)
	for _, method := range sendMethods {
		for _, caps := range [][]any{nil, {}} {
			resp := call(t, srv.URL, method, sendIn(method, "hello, summarizer", caps), nil)
			if got := decodeAnswer(t, resp).text(); got != "hello, summarizer" {
				t.Errorf("%s caps=%v: answer %q, want the echo", method, caps, got)
			}
		}
	}
	if n := len(gw.Calls()); n != 0 {
		t.Errorf("gateway saw %d calls, want none", n)
	}
}

func TestBareCapabilityIDsCallNothing(t *testing.T) {
	gw := newFakeGateway(t)
	_, srv := newAgent(t, gw.srv.URL)
	resp := call(t, srv.URL, "a2a/task/send", sendIn("a2a/task/send", "x", []any{"cap_7f3a9b"}), nil)
	if got := decodeAnswer(t, resp).text(); got != "No documents were delegated to me." {
		t.Errorf("answer %q", got)
	}
	if n := len(gw.Calls()); n != 0 {
		t.Errorf("gateway saw %d calls, want none", n)
	}
}

func TestMalformedCapabilities(t *testing.T) {
	gw := newFakeGateway(t)
	_, srv := newAgent(t, gw.srv.URL)
	for name, caps := range map[string]any{
		"object instead of list": map[string]any{"cap_1": "x"},
		"number entry":           []any{42},
		"capability without id":  []any{map[string]any{"token": "t"}},
		"empty handle":           []any{map[string]any{"id": "cap_1", "resourceHandles": []any{map[string]any{"handle": ""}}}},
		"too many":               make([]any, summarizer.MaxCapabilities+1),
	} {
		t.Run(name, func(t *testing.T) {
			params := sendIn("message/send", "x", nil)
			params["capabilities"] = caps
			resp := call(t, srv.URL, "message/send", params, nil)
			if resp.Error == nil || resp.Error.Code != -32602 {
				t.Errorf("got %+v %s, want -32602", resp.Error, resp.Result)
			}
		})
	}
	if n := len(gw.Calls()); n != 0 {
		t.Errorf("gateway saw %d calls, want none", n)
	}
}

func TestGatewayUnreachable(t *testing.T) {
	gw := newFakeGateway(t)
	url := gw.srv.URL
	gw.srv.Close()
	_, srv := newAgent(t, url)
	resp := call(t, srv.URL, "message/send", sendIn("message/send", "x", []any{delegated("cap_1", "t", "rh_001")}), nil)
	got := decodeAnswer(t, resp).text()
	if !strings.Contains(got, "- Q1 Financial Summary: failed (") {
		t.Errorf("answer %q, want a failed line", got)
	}
}

func TestHandleLimit(t *testing.T) {
	gw := newFakeGateway(t)
	_, srv := newAgent(t, gw.srv.URL)
	handles := make([]string, summarizer.MaxHandles+2)
	for i := range handles {
		handles[i] = "rh_001"
	}
	resp := call(t, srv.URL, "message/send", sendIn("message/send", "x", []any{delegated("cap_1", "t", handles...)}), nil)
	got := decodeAnswer(t, resp).text()
	if n := len(gw.Calls()); n != summarizer.MaxHandles {
		t.Errorf("gateway saw %d calls, want %d", n, summarizer.MaxHandles)
	}
	if strings.Count(got, "skipped: too many documents") != 2 {
		t.Errorf("answer does not report the 2 skipped handles:\n%s", got)
	}
}

func TestStandardMethodsWithoutDelegation(t *testing.T) {
	gw := newFakeGateway(t)
	_, srv := newAgent(t, gw.srv.URL)
	for _, method := range []string{"GetTask", "tasks/get"} {
		resp := call(t, srv.URL, method, map[string]any{"id": "no-such-task"}, nil)
		if resp.Error == nil {
			t.Errorf("%s of an unknown task: want an error", method)
		}
	}
	resp := call(t, srv.URL, "a2a/skill/invoke", map[string]any{"skill": "retrieve_document"}, nil)
	if resp.Error == nil || resp.Error.Code != -32601 {
		t.Errorf("a2a/skill/invoke on the summarizer: got %+v, want -32601", resp.Error)
	}
}

func TestParseDelegated(t *testing.T) {
	caps, err := summarizer.ParseDelegated(json.RawMessage(`{"message":{},"capabilities":["cap_x",{"id":"cap_y","token":"t","resourceHandles":[{"handle":"rh_1","displayName":"D"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 2 || caps[0].ID != "cap_x" || caps[1].Token != "t" || caps[1].ResourceHandles[0].DisplayName != "D" {
		t.Errorf("caps = %+v", caps)
	}
	uri := documents.CapabilityExtensionURI
	for _, in := range []string{
		`{"metadata":{"` + uri + `":{"capabilities":["cap_x",{"id":"cap_y","token":"t","resourceHandles":[{"handle":"rh_1","displayName":"D"}]}]}}}`,
		`{"message":{"metadata":{"` + uri + `":{"capabilities":["cap_x",{"id":"cap_y","token":"t","resourceHandles":[{"handle":"rh_1","displayName":"D"}]}]}}}}`,
	} {
		if got, err := summarizer.ParseDelegated(json.RawMessage(in)); err != nil || !reflect.DeepEqual(got, caps) {
			t.Errorf("ParseDelegated(%s) = %+v, %v; want %+v", in, got, err, caps)
		}
	}
	twice := `{"capabilities":["cap_x"],"message":{"metadata":{"` + uri + `":{"capabilities":["cap_z"]}}}}`
	if _, err := summarizer.ParseDelegated(json.RawMessage(twice)); !errors.Is(err, summarizer.ErrMalformedCapabilities) {
		t.Errorf("capabilities in two places: err = %v, want ErrMalformedCapabilities", err)
	}
	for _, in := range []string{``, `{}`, `{"capabilities":null}`, `[1]`, `{"metadata":{"other":{"capabilities":["x"]}}}`} {
		if caps, err := summarizer.ParseDelegated(json.RawMessage(in)); err != nil || caps != nil {
			t.Errorf("ParseDelegated(%q) = %v, %v; want nothing", in, caps, err)
		}
	}
}

func FuzzParseDelegated(f *testing.F) {
	for _, s := range []string{
		`{"capabilities":[{"id":"c","token":"t","resourceHandles":[{"handle":"h"}]}]}`,
		`{"capabilities":["c",""]}`, `{"capabilities":{}}`, `{"capabilities":[null]}`, `null`,
		`{"metadata":{"` + documents.CapabilityExtensionURI + `":{"capabilities":["c"]}}}`,
		`{"message":{"metadata":{"` + documents.CapabilityExtensionURI + `":{"capabilities":[{"id":"c"}]}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		caps, err := summarizer.ParseDelegated(in)
		if err != nil {
			return
		}
		if len(caps) > summarizer.MaxCapabilities {
			t.Fatalf("accepted %d capabilities", len(caps))
		}
		for _, c := range caps {
			if c.ID == "" {
				t.Fatalf("accepted a capability without id from %q", in)
			}
			for _, h := range c.ResourceHandles {
				if h.Handle == "" {
					t.Fatalf("accepted an empty handle from %q", in)
				}
			}
		}
	})
}
