package a2afront

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/go-chi/chi/v5"
	"github.com/go-jose/go-jose/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/capgate/capgate/gateway/cardsig"
	"github.com/capgate/capgate/gateway/metrics"
)

// lookalikeCard is a v0.3 upstream card that carries, beside its own
// members, a look-alike of each member the gateway writes into the
// served card: an encoding/json reader takes "ſignatures" (U+017F) for
// signatures and "URL" for url.
const lookalikeCard = `{"name":"documents","description":"Documents.","version":"1","protocolVersion":"0.3.0",` +
	`"URL":"https://evil.example/a2a",` +
	`"ſignatures":[{"protected":"eyJqa3UiOiJodHRwczovL2V2aWwuZXhhbXBsZS9qd2tzIn0","signature":"evil"}],` +
	`"ſecuritySchemes":{"o":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://evil.example/t","scopes":{}}}}},` +
	`"ſupportedInterfaces":[{"url":"evil.example:443","protocolBinding":"GRPC","protocolVersion":"1.0"}],` +
	`"capabilities":{"streaming":true,"extensions":[{"uri":"https://github.com/a2aproject/A2A/sep/capability-negotiation"}]},` +
	`"skills":[{"id":"retrieve_document","name":"Retrieve","description":"Retrieves.","tags":["docs"],"ſecurity":[{"o":[]}]}]}`

// TestServeCard serves the documents agent's card for hostile and broken
// upstream cards: look-alikes are not served, and a card that is refused
// or cannot be signed is a 502 that says why and is counted, never a 200.
func TestServeCard(t *testing.T) {
	tests := []struct {
		name, card, wantReason string
		wantStatus             int
	}{
		{"look-alikes", lookalikeCard, "", http.StatusOK},
		{"duplicate member", `{"name":"documents","url":"http://a/","url":"https://evil.example/"}`, "card_refused", http.StatusBadGateway},
		{"case-variant members", `{"name":"documents","signatures":[],"Signatures":[]}`, "card_refused", http.StatusBadGateway},
		{"description not a string", `{"name":"documents","description":42,"url":"http://a/","version":"1"}`, "card_unsigned", http.StatusBadGateway},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := readQuickstartPolicy()
			if err != nil {
				t.Fatal(err)
			}
			fx := newFixtureWith(t, fixtureConfig, data, quickstartCatalog(), &recorder{card: tt.card})
			reg := prometheus.NewRegistry()
			m, err := metrics.New(reg, metrics.Options{Agents: []string{"documents"}})
			if err != nil {
				t.Fatal(err)
			}
			fx.front.deps.Metrics = m
			router := chi.NewRouter()
			fx.front.Mount(router)
			rec := httptest.NewRecorder()
			router.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/a2a/documents/.well-known/agent-card.json", nil))
			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.wantStatus, rec.Body)
			}
			if tt.wantStatus == http.StatusOK {
				checkServedCard(t, fx, rec.Body.Bytes())
				return
			}
			var body map[string]string
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["reason"] != tt.wantReason || body["error"] == "" {
				t.Errorf("body %s (%v), want reason %s and an error", rec.Body, err, tt.wantReason)
			}
			want := "\n# HELP capgate_agent_card_refusals_total " + helpOf(t, reg, "capgate_agent_card_refusals_total") +
				"\n# TYPE capgate_agent_card_refusals_total counter\n" +
				`capgate_agent_card_refusals_total{agent="documents",reason="` + tt.wantReason + `"} 1` + "\n"
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "capgate_agent_card_refusals_total"); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkServedCard reads the served card as a2a-go's client does and checks
// that its signature, security, URL and interfaces are the gateway's, and
// that its one signature verifies with the gateway's key.
func checkServedCard(t *testing.T, fx *fixture, body []byte) {
	t.Helper()
	if strings.Contains(string(body), "evil") {
		t.Errorf("served card carries an upstream look-alike: %s", body)
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatalf("a2a-go cannot read the served card: %v", err)
	}
	const public = "http://gateway.test/a2a/documents"
	if card.URL != public || len(card.Signatures) != 1 {
		t.Fatalf("url %q, signatures %+v", card.URL, card.Signatures)
	}
	for name, s := range card.SecuritySchemes {
		if _, ok := s.(a2a.OAuth2SecurityScheme); ok {
			t.Errorf("security scheme %s is the upstream's OAuth2 scheme", name)
		}
	}
	if card.Skills[0].Security != nil {
		t.Errorf("skill security %v", card.Skills[0].Security)
	}
	var served map[string]any
	_ = json.Unmarshal(body, &served)
	sig := cardsig.Signature{Protected: card.Signatures[0].Protected, Signature: card.Signatures[0].Signature}
	compact, err := cardsig.Compact(served, sig)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := jose.ParseSigned(compact, fx.keys.Algorithms())
	if err != nil {
		t.Fatal(err)
	}
	jwks := fx.keys.JWKS()
	if _, err := obj.Verify(jwks.Key(fx.keys.ActiveKeyID())[0]); err != nil {
		t.Errorf("the served card's signature does not verify: %v", err)
	}
	header, _ := base64.RawURLEncoding.DecodeString(sig.Protected)
	if !strings.Contains(string(header), `"jku":"http://gateway.test/.well-known/jwks.json"`) {
		t.Errorf("protected header %s", header)
	}
}

// helpOf returns the help text of the metric family name in reg.
func helpOf(t *testing.T, reg *prometheus.Registry, name string) string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetHelp()
		}
	}
	t.Fatalf("no metric %s", name)
	return ""
}
