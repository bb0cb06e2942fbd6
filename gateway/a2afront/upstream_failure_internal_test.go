package a2afront

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// hangUpOnInvoke is an agent that drops the connection on every skill
// invocation, without answering, and serves the rest as the recorder does.
func hangUpOnInvoke(w http.ResponseWriter, _ *http.Request, method string, _ json.RawMessage, _ []byte) bool {
	if method != "a2a/skill/invoke" {
		return false
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
	return true
}

// TestUpstreamFailureAnswersTheCallsID: when the agent fails the hop, the
// caller is answered upstream_unavailable under its own call's id, alone
// or as one element of a batch whose other elements keep their answers.
func TestUpstreamFailureAnswersTheCallsID(t *testing.T) {
	data, err := readQuickstartPolicy()
	if err != nil {
		t.Fatal(err)
	}
	fx := newFixtureWith(t, fixtureConfig, data, quickstartCatalog(), &recorder{answer: hangUpOnInvoke})
	c := fx.issue(t)
	invoke := func(id string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","capabilityId":%q,"arguments":{"resourceHandle":%q}}}`,
			id, c.ID, c.ResourceHandles[0].Handle)
	}
	tests := []struct {
		name       string
		body       string
		wantStatus int
		want       []string // each answer, in order: "id reason" ("" reason: a result)
	}{
		{"single", invoke(`"abc"`), http.StatusBadGateway, []string{`"abc" upstream_unavailable`}},
		{"batch", "[" + invoke("7") + `,{"jsonrpc":"2.0","id":"x","method":"no/such/method"}]`, http.StatusOK,
			[]string{`7 upstream_unavailable`, `"x" `}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := fx.post(t, aliceKey, "documents", tt.body, nil)
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", status, tt.wantStatus, body)
			}
			var answers []struct {
				ID    json.RawMessage `json:"id"`
				Error *struct {
					Data struct {
						Reason string `json:"reason"`
					} `json:"data"`
				} `json:"error"`
			}
			if !strings.HasPrefix(body, "[") {
				body = "[" + body + "]"
			}
			if err := json.Unmarshal([]byte(body), &answers); err != nil || len(answers) != len(tt.want) {
				t.Fatalf("answers %s (%v), want %d", body, err, len(tt.want))
			}
			for i, a := range answers {
				reason := ""
				if a.Error != nil {
					reason = a.Error.Data.Reason
				}
				if tt.want[i] == `"x" ` {
					reason = "" // refused by the gateway: any reason, under its id
				}
				if got := string(a.ID) + " " + reason; got != tt.want[i] {
					t.Errorf("answer %d = %s, want %s", i, got, tt.want[i])
				}
			}
		})
	}
}
