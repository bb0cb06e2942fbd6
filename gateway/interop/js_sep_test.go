package interop_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// aliceRequest is alice's capability request for the quarterly reports.
var aliceRequest = map[string]any{
	"grants": []string{"documents:read"}, "purpose": "Summarize quarterly reports",
	"resourceQuery": map[string]any{"collection": "reports", "filter": map[string]string{"quarter": "2025-Q1"}},
}

type invokeOut struct {
	Error   *stepErr       `json:"error"`
	Without map[string]any `json:"without"`
	Request map[string]any `json:"request"`
	With    map[string]any `json:"with"`
}

type delegateOut struct {
	Error   *stepErr       `json:"error"`
	Request map[string]any `json:"request"`
	Send    sendOut        `json:"send"`
}

// checkInvoke asserts the invoke scenario's steps: refused without a
// capability, the document behind the handle with one.
func checkInvoke(t *testing.T, out invokeOut) {
	t.Helper()
	if out.Error != nil {
		t.Fatalf("client failed: %+v", out.Error)
	}
	t.Run("without capability", func(t *testing.T) {
		e := stepError(out.Without)
		if e == nil || e["code"] != float64(-32040) || reasonOf(e) != "capability_required" {
			t.Fatalf("want -32040 capability_required, got %v", out.Without)
		}
	})
	t.Run("with capability", func(t *testing.T) {
		if out.Request["error"] != nil || out.Request["handles"] == float64(0) {
			t.Fatalf("capability request: %v", out.Request)
		}
		// The document comes back by title; no storage id reaches the caller.
		raw, _ := json.Marshal(out.With)
		if out.With["error"] != nil || out.With["title"] != "Q1 Financial Summary" || strings.Contains(string(raw), "reports/") {
			t.Fatalf("want the document behind the handle, without its storage id, got %v", out.With)
		}
	})
}

// stepError returns a step's error object, or nil.
func stepError(step map[string]any) map[string]any {
	e, _ := step["error"].(map[string]any)
	return e
}

// reasonOf is capgate's reason word in a refusal's data: in the ErrorInfo
// of A2A v1.0's typed details (a v1.0 caller's), or in capgate's own
// object (a v0.3 caller's).
func reasonOf(e map[string]any) string {
	if details, ok := e["data"].([]any); ok {
		for _, d := range details {
			info, _ := d.(map[string]any)
			if info["@type"] == jsonrpc.TypeErrorInfo {
				meta, _ := info["metadata"].(map[string]any)
				r, _ := meta["reason"].(string)
				return r
			}
		}
		return ""
	}
	d, _ := e["data"].(map[string]any)
	r, _ := d["reason"].(string)
	return r
}

// TestJSClientDelegation delegates a capability with the JS SDK's own
// sendMessage, naming it in message.metadata under the extension's URI.
func TestJSClientDelegation(t *testing.T) {
	w := startWorld(t, true)
	for _, target := range []string{delegateAgent, v1Agent, bothAgent, v03Agent, goV1Agent} {
		t.Run(target, func(t *testing.T) {
			var out delegateOut
			runClient(t, w.kit, "delegate", map[string]any{
				"source": w.base(sepAgent), "base": w.base(target), "bearer": quickstart.AliceKey, "request": aliceRequest,
			}, &out)
			if out.Error != nil || out.Request["error"] != nil {
				t.Fatalf("client failed: %+v %v", out.Error, out.Request)
			}
			if out.Send.Error != nil {
				t.Fatalf("delegating send failed: %+v", out.Send.Error)
			}
			if target != delegateAgent {
				checkMintedChild(t, out)
			}
		})
	}
}

// checkMintedChild asserts that the receiving agent found, in the
// message's metadata under the extension's URI, a capability minted for it
// and never the caller's own.
func checkMintedChild(t *testing.T, out delegateOut) {
	t.Helper()
	if len(out.Send.Artifact) != 1 {
		t.Fatalf("want the agent's echo, got %+v", out.Send)
	}
	echo, _ := out.Send.Artifact[0].(map[string]any)
	checkChildIn(t, echo, out.Request["id"])
}

// checkChildIn asserts that an echo agent's echo shows, in the message's
// metadata under the extension's URI, one capability minted for the
// agent, never the caller's parent.
func checkChildIn(t *testing.T, echo map[string]any, parent any) {
	t.Helper()
	md, _ := echo["messageMetadata"].(map[string]any)
	ext, _ := md[capabilityExtensionURI].(map[string]any)
	caps, _ := ext["capabilities"].([]any)
	if len(caps) != 1 {
		t.Fatalf("the agent found capabilities %v in metadata, want one minted child", md)
	}
	id := caps[0]
	if m, ok := caps[0].(map[string]any); ok {
		id = m["id"]
	}
	if id == parent || id == "" || id == nil {
		t.Fatalf("the agent received %v, want a child minted for it, not the caller's %v", caps[0], parent)
	}
}
