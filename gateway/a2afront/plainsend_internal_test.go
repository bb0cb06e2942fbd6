package a2afront

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/agentcard"
)

// TestPlainSendNeverForwardsAToken: a capability named on a send that
// delegates nothing authorises nothing, and its token is a bearer
// credential, so wherever the caller put it the agent receives the message
// without it (and without the capability's id).
func TestPlainSendNeverForwardsAToken(t *testing.T) {
	uri := agentcard.ExtensionURI
	tests := []struct{ name, params string }{
		{"params", `{"capabilityToken":"secret.token.value","capabilityId":"cap_x","message":{"messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}`},
		{"params.metadata", `{"metadata":{"` + uri + `":{"capabilityToken":"secret.token.value"}},"message":{"messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}`},
		{"message.metadata", `{"message":{"messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}],"metadata":{"` + uri + `":{"capabilityToken":"secret.token.value","capabilityId":"cap_x"},"other":1}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			r := chi.NewRouter()
			fx.front.Mount(r)
			req := httptest.NewRequest(http.MethodPost, "/a2a/documents",
				bytes.NewBufferString(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":`+tt.params+`}`))
			req.Header.Set("Authorization", "Bearer "+aliceKey)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			got := fx.upstream.calls("message/send")
			if len(got) != 1 {
				t.Fatalf("the agent received %d sends; answer %d %s", len(got), w.Code, w.Body)
			}
			body := string(got[0].body)
			for _, leak := range []string{"secret.token.value", "cap_x", "capabilityToken"} {
				if strings.Contains(body, leak) {
					t.Errorf("%q reached the agent: %s", leak, body)
				}
			}
			if !strings.Contains(body, `"hi"`) {
				t.Errorf("the message itself did not reach the agent: %s", body)
			}
		})
	}
}
