package quickstart_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

// metaSend is a send whose extension data is in params.metadata (where
// "params") or in message.metadata (where "message"), as a stock A2A SDK
// sends it.
func metaSend(where, text string, ext map[string]any) map[string]any {
	p := sendParams(text, nil, nil)
	md := map[string]any{documents.CapabilityExtensionURI: ext}
	if where == "message" {
		p["message"].(map[string]any)["metadata"] = md
	} else {
		p["metadata"] = md
	}
	return p
}

// childIn reads the one child the summarizer received under the
// extension's URI in params.metadata or message.metadata.
func childIn(t *testing.T, forwarded, where string) capOut {
	t.Helper()
	type entry struct {
		Capabilities []capOut `json:"capabilities"`
	}
	var req struct {
		Params struct {
			Metadata map[string]entry `json:"metadata"`
			Message  struct {
				Metadata map[string]entry `json:"metadata"`
			} `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(forwarded), &req); err != nil {
		t.Fatal(err)
	}
	md := req.Params.Metadata
	if where == "message" {
		md = req.Params.Message.Metadata
	}
	caps := md[documents.CapabilityExtensionURI].Capabilities
	if len(caps) != 1 {
		t.Fatalf("no child in %s metadata: %s", where, forwarded)
	}
	return caps[0]
}

// TestDelegationThroughMetadata is the quickstart delegation with the
// extension's data where a stock SDK puts it: the summarizer finds its
// child in the same place, reads the document with it, and neither the
// parent's id, its token nor the attenuations reach the summarizer. The
// child is then used with its id in the invocation's metadata.
func TestDelegationThroughMetadata(t *testing.T) {
	for _, where := range []string{"params", "message"} {
		t.Run(where, func(t *testing.T) {
			w := startWorld(t)
			parent := aliceQ1(t, w)
			fin := parent.ResourceHandles[0].Handle
			out := rpc(t, w, "summarizer", quickstart.AliceKey, "SendMessage", metaSend(where, "Summarize this document", map[string]any{
				"capabilities":    []map[string]any{{"id": parent.ID, "token": parent.Token}},
				"capabilityToken": parent.Token,
				"attenuations":    map[string]any{parent.ID: map[string]any{"resourceHandles": []string{fin}, "operations": []string{"retrieve"}}},
			}), "A2A-Version", "1.0")
			if out.Error != nil || !strings.Contains(string(out.Result), "Q1 Financial Summary") {
				t.Fatalf("delegated send: %+v %s", out.Error, out.Result)
			}
			reqs := w.Summarizer.Recorder().Requests()
			forwarded := string(reqs[len(reqs)-1].Body)
			for _, leak := range []string{parent.Token, "attenuations", "capabilityToken"} {
				if strings.Contains(forwarded, leak) {
					t.Fatalf("%s reached the summarizer: %s", leak, forwarded)
				}
			}
			if strings.Count(forwarded, parent.ID) != 1 || !strings.Contains(forwarded, `"parentId":"`+parent.ID+`"`) {
				t.Fatalf("the parent's id reached the summarizer other than as the child's parentId: %s", forwarded)
			}
			child := childIn(t, forwarded, where)
			if child.Holder != "agent:summarizer" || len(child.ResourceHandles) != 1 {
				t.Fatalf("child = %+v", child)
			}
			viaMeta := rpc(t, w, "documents", quickstart.SummarizerKey, "a2a/skill/invoke", map[string]any{
				"skill": "retrieve_document", "arguments": map[string]any{"resourceHandle": fin},
				"metadata": map[string]any{documents.CapabilityExtensionURI: map[string]any{"capabilityId": child.ID, "capabilityToken": child.Token}}})
			if viaMeta.Error != nil {
				t.Fatalf("invocation with the capability in metadata: %+v", viaMeta.Error)
			}
		})
	}
}

// TestDelegationThroughMetadataRefusals: the metadata form is held to the
// same checks as the top-level form, and nothing refused reaches the
// summarizer or the documents agent.
func TestDelegationThroughMetadataRefusals(t *testing.T) {
	w := startWorld(t)
	parent := aliceQ1(t, w)
	uri := documents.CapabilityExtensionURI
	twoPlaces := metaSend("message", "x", map[string]any{"capabilities": []string{parent.ID}})
	twoPlaces["capabilities"] = []string{"cap_other"}
	tests := []struct {
		name   string
		key    string
		params map[string]any
		code   int
		reason string
	}{
		{"widening attempt", quickstart.AliceKey, metaSend("params", "x", map[string]any{"capabilities": []string{parent.ID},
			"attenuations": map[string]any{parent.ID: map[string]any{"operations": []string{"retrieve", "update"}}}}), -32048, "attenuation_not_permitted"},
		{"not the holder", quickstart.BobKey, metaSend("message", "x", map[string]any{"capabilities": []string{parent.ID}}), -32046, "holder_mismatch"},
		{"attenuations without capabilities", quickstart.AliceKey, metaSend("message", "x", map[string]any{"attenuations": map[string]any{}}), -32602, ""},
		{"two places disagree", quickstart.AliceKey, twoPlaces, -32602, ""},
		{"case-variant member", quickstart.AliceKey, metaSend("params", "x", map[string]any{"Capabilities": []string{parent.ID}}), -32602, ""},
		{"case-variant URI", quickstart.AliceKey, map[string]any{"message": sendParams("x", nil, nil)["message"],
			"metadata": map[string]any{strings.ToUpper(uri): map[string]any{"capabilities": []string{parent.ID}}}}, -32602, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := summarizerCalls(w)
			wantErr(t, rpc(t, w, "summarizer", tt.key, "message/send", tt.params), tt.code, tt.reason)
			if summarizerCalls(w) != before {
				t.Fatal("a refused send reached the summarizer")
			}
		})
	}
	before := w.Documents.Recorder().CountRPC("a2a/skill/invoke")
	wantErr(t, rpc(t, w, "documents", quickstart.AliceKey, "a2a/skill/invoke", map[string]any{
		"skill": "retrieve_document", "capabilityId": parent.ID, "arguments": map[string]any{"resourceHandle": parent.ResourceHandles[0].Handle},
		"metadata": map[string]any{uri: map[string]any{"capabilityId": "cap_other"}}}), -32602, "")
	if w.Documents.Recorder().CountRPC("a2a/skill/invoke") != before {
		t.Fatal("a refused invocation reached the documents agent")
	}
}
