package a2efront_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// Example fronts the lab host with the quickstart policy: alice (finance)
// may negotiate tools and memory, and lab has no chains plugin.
func Example() {
	ctx := context.Background()
	host, _ := lab.New(lab.Options{AuthToken: "lab-secret"})
	labSrv := httptest.NewServer(host.Handler())
	defer labSrv.Close()

	auth, _ := authn.New(ctx, nil, []authn.DevKey{
		{Hash: authn.HashKey("alice-dev-key"), Principal: "user:alice@example.com", Groups: []string{"finance"}},
	}, authn.Options{})
	data, _ := os.ReadFile("../../deploy/examples/quickstart/policy.yaml")
	pol, _, err := policy.Load(ctx, data, "policy.yaml", policytest.QuickstartCatalog())
	if err != nil {
		fmt.Println(err)
		return
	}
	front, _ := a2efront.New(a2efront.Config{Hosts: []a2efront.Host{{
		Name: "lab", URL: labSrv.URL + "/", AuthToken: "lab-secret", Capabilities: []string{"tools", "memory", "env"},
	}}}, a2efront.Deps{Authenticate: auth.AuthenticateToken, Policy: fixedPolicy{pol}, Sessions: a2efront.NewMemoryStore(nil)})
	r := chi.NewRouter()
	front.Mount(r)
	gw := httptest.NewServer(r)
	defer gw.Close()

	c, _ := lab.NewSession(ctx, nil, gw.URL+"/a2e/lab/")
	_ = c.OpenStream(ctx)
	defer c.Close()
	_, _ = c.SendMessage(ctx, a2e.Envelope{ID: "h1", Version: "1.0", Key: a2e.KeyA2E},
		&a2e.HandshakeReq{AgentID: "agent", AgentCaps: []string{"tools", "memory", "env", "chains"}, AuthToken: "alice-dev-key"})
	m, _ := c.Next(ctx)
	for _, cp := range m.Body.(*a2e.HandshakeResp).AcceptedCaps {
		if cp.Enabled {
			fmt.Println(cp.Capability, "enabled")
			continue
		}
		fmt.Println(cp.Capability, "disabled:", cp.Reason())
	}
	_, _ = c.SendMessage(ctx, a2e.Envelope{ID: "e1", Version: "1.0", Key: a2e.KeyA2E}, &a2e.EnvResetReq{})
	m, _ = c.Next(ctx)
	e := m.Body.(*a2e.Error)
	fmt.Println(e.Code, e.CapabilityName, "host saw", host.Recorder().Types())
	// Output:
	// tools enabled
	// memory enabled
	// env disabled: denied by policy
	// chains disabled: no plugin loaded
	// capability_missing env host saw [handshake/req]
}
