package a2afront

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/sep"
)

// TestDelegatedParams: the minted children land where the caller put its
// capabilities, and nothing of the caller's extension data (parent ids,
// tokens, attenuations) is left anywhere in the forwarded params; other
// metadata is kept.
func TestDelegatedParams(t *testing.T) {
	uri := agentcard.ExtensionURI
	ext := `{"capabilities":[{"id":"cap_parent","token":"parent.token"}],"capabilityToken":"parent.token","attenuations":{"cap_parent":{}},"x":1}`
	tests := []struct {
		name   string
		params string
		// want is the path of the children: "", "metadata" or "message.metadata".
		want string
		// keep is text that must survive.
		keep []string
	}{
		{name: "top level", params: `{"message":{"parts":[]},"capabilities":["cap_parent"],"capabilityToken":"parent.token","attenuations":{"cap_parent":{}}}`},
		{name: "params metadata", params: `{"message":{"parts":[]},"metadata":{"` + uri + `":` + ext + `,"other":"kept-1"}}`, want: "metadata", keep: []string{"kept-1"}},
		{name: "message metadata", params: `{"message":{"parts":[],"metadata":{"` + uri + `":` + ext + `}}}`, want: "message.metadata"},
		{name: "same value in two places", params: `{"capabilities":[{"id":"cap_parent","token":"parent.token"}],"message":{"parts":[],"metadata":{"` + uri + `":` + ext + `,"other":"kept-2"}}}`, keep: []string{"kept-2"}},
	}
	children := []sep.Capability{{ID: "cap_child", Token: "child.token", Holder: "agent:summarizer"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var params map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.params), &params); err != nil {
				t.Fatal(err)
			}
			x, e := extensionData(params)
			if e != nil {
				t.Fatal(e)
			}
			out := encodeObject(delegatedParams(params, x.Where[memberCapabilities], children))
			for _, leak := range []string{"cap_parent", "parent.token", "attenuations", "capabilityToken", `"x"`} {
				if strings.Contains(string(out), leak) {
					t.Errorf("%s reached the agent: %s", leak, out)
				}
			}
			for _, k := range tt.keep {
				if !strings.Contains(string(out), k) {
					t.Errorf("%s was lost: %s", k, out)
				}
			}
			if got := childrenAt(t, out, tt.want); len(got) != 1 || got[0].ID != "cap_child" {
				t.Errorf("children at %q = %+v in %s", tt.want, got, out)
			}
			if n := strings.Count(string(out), "cap_child"); n != 1 {
				t.Errorf("children forwarded %d times, want once: %s", n, out)
			}
		})
	}
}

// childrenAt reads the capabilities at path ("" for params itself).
func childrenAt(t *testing.T, params []byte, path string) []sep.Capability {
	t.Helper()
	var p struct {
		Capabilities []sep.Capability           `json:"capabilities"`
		Metadata     map[string]json.RawMessage `json:"metadata"`
		Message      struct {
			Metadata map[string]json.RawMessage `json:"metadata"`
		} `json:"message"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatal(err)
	}
	var entry json.RawMessage
	switch path {
	case "":
		return p.Capabilities
	case "metadata":
		entry = p.Metadata[agentcard.ExtensionURI]
	case "message.metadata":
		entry = p.Message.Metadata[agentcard.ExtensionURI]
	}
	var e struct {
		Capabilities []sep.Capability `json:"capabilities"`
	}
	if err := json.Unmarshal(entry, &e); err != nil {
		t.Fatalf("no extension entry at %s: %s", path, params)
	}
	return e.Capabilities
}
