package agentcard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/cardsig"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// gatewaySignature is the signature the test signer gives every card it
// can sign.
var gatewaySignature = map[string]any{"protected": "gateway", "signature": "gateway-signature"}

// canonicalSigner signs as the gateway does as far as the card goes: a
// card without a canonical form (cardsig.Canonical) is not signed.
func canonicalSigner(card map[string]any) (any, error) {
	if _, err := cardsig.Canonical(card); err != nil {
		return nil, err
	}
	return gatewaySignature, nil
}

// serveUpstream returns a source whose upstream serves body as its card.
func serveUpstream(t *testing.T, body string) *agentcard.Source {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL + "/.well-known/agent-card.json")
	cfg := goldenConfig(false)
	cfg.CardURLs, cfg.Sign = []*url.URL{u}, canonicalSigner
	return agentcard.NewSource(cfg, http.DefaultTransport, time.Now, slog.New(slog.DiscardHandler))
}

// checkGatewayOnly decodes a served card as a2a-go's client does (an
// encoding/json reader, matching names case-insensitively) and checks
// that what it reads of the signatures, security, URLs and interfaces is
// the gateway's, and that nothing of the upstream's look-alikes is left.
func checkGatewayOnly(t *testing.T, body []byte) {
	t.Helper()
	if strings.Contains(string(body), "evil") {
		t.Errorf("served card carries the upstream's look-alike: %s", body)
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatalf("a2a-go cannot read the served card: %v\n%s", err, body)
	}
	if len(card.Signatures) != 1 || card.Signatures[0].Protected != "gateway" {
		t.Errorf("signatures %+v, want the gateway's only", card.Signatures)
	}
	if card.URL != served || card.PreferredTransport != a2a.TransportProtocolJSONRPC {
		t.Errorf("url %q (%s), want %q (JSONRPC)", card.URL, card.PreferredTransport, served)
	}
	for name, s := range card.SecuritySchemes {
		_, bearer := s.(a2a.HTTPAuthSecurityScheme)
		_, oidc := s.(a2a.OpenIDConnectSecurityScheme)
		if !bearer && !oidc {
			t.Errorf("security scheme %s is %T, not the gateway's", name, s)
		}
	}
	for _, iface := range card.AdditionalInterfaces {
		if iface.URL != served {
			t.Errorf("additional interface %+v", iface)
		}
	}
	for _, sk := range card.Skills {
		if sk.Security != nil {
			t.Errorf("skill %s has security %v", sk.ID, sk.Security)
		}
	}
	if card.Provider != nil && card.Provider.URL != "" {
		t.Errorf("provider url %q", card.Provider.URL)
	}
	var raw map[string]any
	_ = json.Unmarshal(body, &raw)
	for _, e := range raw["supportedInterfaces"].([]any) {
		if m := e.(map[string]any); m["url"] != served || m["protocolBinding"] != agentcard.BindingJSONRPC {
			t.Errorf("supported interface %v", m)
		}
	}
}

// TestLookalikeGolden pins the served card of an upstream card that
// carries a look-alike of every member the gateway writes, at the top and
// in a skill, the capabilities and the provider.
func TestLookalikeGolden(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "lookalike_upstream.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := serveUpstream(t, string(body)).Card(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkGatewayOnly(t, b)
	var card map[string]any
	if err := json.Unmarshal(b, &card); err != nil {
		t.Fatal(err)
	}
	golden(t, "lookalike_served.golden.json", card)
}

// lookalikeBase is a v0.3 upstream card with one more member at %s.
const lookalikeBase = `{"name":"notes","description":"Notes.","version":"1","protocolVersion":"0.3.0",` +
	`"capabilities":{"streaming":true %s},"provider":{"organization":"N" %s},` +
	`"skills":[{"id":"notes.read","name":"Read","description":"Reads.","tags":["notes"] %s}] %s}`

// withMember returns lookalikeBase with member added to the object at
// where: "capabilities", "provider", "skill" or "card".
func withMember(where, member string) string {
	slots := make([]any, 4)
	for i, w := range []string{"capabilities", "provider", "skill", "card"} {
		slots[i] = ""
		if w == where {
			slots[i] = "," + member
		}
	}
	return fmt.Sprintf(lookalikeBase, slots...)
}

// TestSourceLookalikes serves upstream cards with one look-alike each, or
// with a look-alike beside the member it imitates. A lone look-alike is
// an unknown member: dropped, and the card served with the gateway's
// members only. Two spellings of one member, or one member twice, are
// refused, as is a card the gateway cannot sign.
func TestSourceLookalikes(t *testing.T) {
	const evilSig = `[{"protected":"eyJqa3UiOiJodHRwczovL2V2aWwuZXhhbXBsZS9qd2tzIn0","signature":"evil"}]`
	const evilOAuth = `{"o":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://evil.example/t","scopes":{}}}}}`
	const evilIface = `[{"url":"evil.example:443","protocolBinding":"GRPC","protocolVersion":"1.0"}]`
	tests := []struct {
		name, card string
		wantErr    []error
	}{
		{"Signatures", withMember("card", `"Signatures":`+evilSig), nil},
		{"ſignatures (U+017F)", withMember("card", `"ſignatures":`+evilSig), nil},
		{"escaped ſignatures", withMember("card", `"\u017fignatures":`+evilSig), nil},
		{"ſecuritySchemes", withMember("card", `"ſecuritySchemes":`+evilOAuth+`,"ſecurity":[{"o":[]}]`), nil},
		{"URL", withMember("card", `"URL":"https://evil.example/a2a"`), nil},
		{"Url", withMember("card", `"Url":"https://evil.example/a2a"`), nil},
		{"ſupportedInterfaces", withMember("card", `"ſupportedInterfaces":`+evilIface), nil},
		{"AdditionalInterfaces", withMember("card", `"AdditionalInterfaces":[{"url":"https://evil.example/g","transport":"GRPC"}]`), nil},
		{"proto name supported_interfaces", withMember("card", `"supported_interfaces":`+evilIface), nil},
		{"skill ſecurity", withMember("skill", `"ſecurity":[{"o":[]}]`), nil},
		{"capabilities Extensions", withMember("capabilities", `"Extensions":[{"uri":"https://evil.example/x","required":true}]`), nil},
		{"provider URL", withMember("provider", `"URL":"https://evil.example/"`), nil},
		{"unknown member", withMember("card", `"x-vendor":{"url":"https://evil.example/"}`), nil},

		{"signatures and Signatures", withMember("card", `"signatures":[],"Signatures":`+evilSig),
			[]error{agentcard.ErrCardRefused, jsonrpc.ErrCaseVariantKey}},
		{"url and URL", withMember("card", `"url":"https://a.example/","URL":"https://evil.example/a2a"`),
			[]error{agentcard.ErrCardRefused, jsonrpc.ErrCaseVariantKey}},
		{"securitySchemes and ſecuritySchemes", withMember("card", `"securitySchemes":{},"ſecuritySchemes":`+evilOAuth),
			[]error{agentcard.ErrCardRefused, jsonrpc.ErrCaseVariantKey}},
		{"skills and sKills (U+212A)", withMember("card", "\"s\u212aills\":[]"),
			[]error{agentcard.ErrCardRefused, jsonrpc.ErrCaseVariantKey}},
		{"url twice", withMember("card", `"url":"https://a.example/","url":"https://evil.example/a2a"`),
			[]error{agentcard.ErrCardRefused, jsonrpc.ErrDuplicateKey}},
		{"url twice, once escaped", withMember("card", `"url":"https://a.example/","\u0075rl":"https://evil.example/a2a"`),
			[]error{agentcard.ErrCardRefused, jsonrpc.ErrDuplicateKey}},
		{"skill id twice", withMember("skill", `"id":"evil"`), []error{agentcard.ErrCardRefused, jsonrpc.ErrDuplicateKey}},
		{"provider url and URL", withMember("provider", `"url":"https://n.example/","URL":"https://evil.example/"`),
			[]error{agentcard.ErrCardRefused, jsonrpc.ErrCaseVariantKey}},
		{"not an object", `["evil"]`, []error{agentcard.ErrCardRefused, jsonrpc.ErrParse}},
		{"not JSON", `{"url":"https://evil.example/"`, []error{agentcard.ErrCardRefused, jsonrpc.ErrParse}},
		{"description not a string", strings.Replace(withMember("card", `"url":"x"`), `"description":"Notes."`, `"description":42`, 1),
			[]error{agentcard.ErrUnsigned, cardsig.ErrNotCanonical}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, raw, err := serveUpstream(t, tt.card).Card(context.Background())
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("Card() error = %v, want %v", err, want)
				}
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Card() error = %v", err)
				}
				checkGatewayOnly(t, b)
				return
			}
			if b != nil || raw != nil {
				t.Errorf("Card() served %s for a card it refused", b)
			}
		})
	}
}

// TestUnserved checks the reason word and sentence a caller gets for each
// card that cannot be served.
func TestUnserved(t *testing.T) {
	tests := []struct {
		card, wantReason, wantIn string
	}{
		{withMember("card", `"url":"a","URL":"b"`), agentcard.ReasonCardRefused, "differ only in case"},
		{withMember("card", `"url":"a","url":"b"`), agentcard.ReasonCardRefused, "repeats a member name"},
		{`[]`, agentcard.ReasonCardRefused, "not a JSON object"},
		{strings.Replace(withMember("card", `"url":"x"`), `"Notes."`, `42`, 1), agentcard.ReasonCardUnsigned, "serves no card unsigned"},
	}
	for _, tt := range tests {
		_, _, err := serveUpstream(t, tt.card).Card(context.Background())
		reason, msg := agentcard.Unserved(err)
		if reason != tt.wantReason || !strings.Contains(msg, tt.wantIn) {
			t.Errorf("Unserved(%v) = %q, %q; want %q, …%s…", err, reason, msg, tt.wantReason, tt.wantIn)
		}
	}
	if reason, _ := agentcard.Unserved(agentcard.ErrFetch); reason != agentcard.ReasonCardUnavailable {
		t.Errorf("Unserved(ErrFetch) = %q", reason)
	}
}
