package interop_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2aproject/a2a-go/v2/a2a"
	clientv1 "github.com/a2aproject/a2a-go/v2/a2aclient"
	cardv1 "github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// a2a-go/v2 v2.4.0 reads a security requirement's scopes as a plain list
// of strings ({"schemes": {"bearer": []}}), where A2A v1.0's JSON form of
// a2a.proto, which capgate's served cards follow, wraps them in a
// StringList ({"schemes": {"bearer": {"list": []}}}): its default card
// resolver fails on every such card ("card parsing failed"). Its
// Resolver takes a CardParser; v1CardParser, given in the README, unwraps
// the lists and leaves the rest to the SDK's own parser.

// v1CardParser is the SDK's DefaultCardParser on the card with each
// security requirement's {"list": [...]} scopes unwrapped.
func v1CardParser(body []byte) (*a2av1.AgentCard, error) {
	var card map[string]json.RawMessage
	if err := json.Unmarshal(body, &card); err != nil {
		return nil, err
	}
	if err := unwrapScopes(card); err != nil {
		return nil, err
	}
	var skills []map[string]json.RawMessage
	if json.Unmarshal(card["skills"], &skills) == nil {
		for _, s := range skills {
			if err := unwrapScopes(s); err != nil {
				return nil, err
			}
		}
		card["skills"], _ = json.Marshal(skills)
	}
	body, err := json.Marshal(card)
	if err != nil {
		return nil, err
	}
	return cardv1.DefaultCardParser(body)
}

// unwrapScopes rewrites obj's securityRequirements so that each scheme's
// scopes are a plain list.
func unwrapScopes(obj map[string]json.RawMessage) error {
	raw, ok := obj["securityRequirements"]
	if !ok {
		return nil
	}
	var reqs []map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &reqs); err != nil {
		return err
	}
	for _, req := range reqs {
		for name, scopes := range req["schemes"] {
			var wrapped struct {
				List []string `json:"list"`
			}
			if json.Unmarshal(scopes, &wrapped) == nil && wrapped.List != nil {
				req["schemes"][name], _ = json.Marshal(wrapped.List)
			} else if string(scopes) == "{}" {
				req["schemes"][name] = json.RawMessage("[]")
			}
		}
	}
	var err error
	obj["securityRequirements"], err = json.Marshal(reqs)
	return err
}

// goV1ClientFor resolves agent's card through the gateway with the
// workaround parser and returns a stock a2a-go/v2 client for it,
// authenticated as alice by the SDK's own AuthInterceptor.
func goV1ClientFor(ctx context.Context, t *testing.T, w *world, agent string) (*clientv1.Client, context.Context) {
	t.Helper()
	resolver := &cardv1.Resolver{CardParser: v1CardParser}
	card, err := resolver.Resolve(ctx, w.base(agent))
	if err != nil {
		t.Fatalf("card resolution: %v", err)
	}
	creds := clientv1.NewInMemoryCredentialsStore()
	c, err := clientv1.NewFromCard(ctx, card, clientv1.WithCallInterceptors(&clientv1.AuthInterceptor{Service: creds}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	for _, req := range card.SecurityRequirements {
		for scheme := range req {
			creds.Set("alice", scheme, quickstart.AliceKey)
		}
	}
	return c, clientv1.AttachSessionID(ctx, "alice")
}

// TestGoV1CardScopes: the SDK's default resolver cannot read the scopes of
// a capgate card (a2a-go/v2 v2.4.0); the documented parser can, and the
// card it reads names the gateway's schemes for the AuthInterceptor. When
// this test fails because the default resolver succeeds, the SDK reads
// the spec's form and the workaround can go.
func TestGoV1CardScopes(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cardv1.DefaultResolver.Resolve(ctx, w.base(v03Agent)); err == nil || !strings.Contains(err.Error(), "card parsing failed") {
		t.Fatalf("default resolver: got %v, want the SDK's card parsing failure", err)
	}
	card, err := (&cardv1.Resolver{CardParser: v1CardParser}).Resolve(ctx, w.base(v03Agent))
	if err != nil {
		t.Fatalf("resolution with the workaround: %v", err)
	}
	if len(card.SecurityRequirements) == 0 || len(card.SecuritySchemes) == 0 {
		t.Fatalf("the card names no security: %+v", card)
	}
	if len(card.SupportedInterfaces) == 0 || !strings.HasPrefix(card.SupportedInterfaces[0].URL, w.URL+"/a2a/"+v03Agent) {
		t.Fatalf("card interfaces %+v, want the gateway", card.SupportedInterfaces)
	}
}
