package a2efront_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestOpenFromConfig: no hosts, no front; a host whose secret variable is
// empty, or no key set, is refused; two fronts opened on one Redis with
// one key set (two replicas) share a session, and the host's secret comes
// from the environment.
func TestOpenFromConfig(t *testing.T) {
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	h, err := lab.New(lab.Options{AuthToken: labSecret})
	if err != nil {
		t.Fatal(err)
	}
	labSrv := httptest.NewServer(h.Handler())
	t.Cleanup(func() { labSrv.Close(); _ = h.Close() })
	hosts := []config.A2EHost{{Name: "lab", URL: labSrv.URL + "/", Capabilities: []string{"tools", "memory", "env"}, AuthTokenEnv: "LAB"}}
	auth := authenticator(t)
	o := a2efront.OpenOptions{Deps: a2efront.Deps{Authenticate: auth.AuthenticateToken, Policy: fixedPolicy{quickstartPolicy(t)},
		Runtime: platform.Runtime{Getenv: func(k string) string { return map[string]string{"LAB": labSecret}[k] }}}, Keys: ks}

	if f, closeNone, err := a2efront.Open(nil, o); f != nil || err != nil || closeNone() != nil {
		t.Fatalf("without hosts: %v %v", f, err)
	}
	for name, mod := range map[string]func(*a2efront.OpenOptions){
		"secret variable empty": func(o *a2efront.OpenOptions) { o.Getenv = func(string) string { return "" } },
		"no key set":            func(o *a2efront.OpenOptions) { o.Keys = nil },
	} {
		t.Run(name, func(t *testing.T) {
			bad := o
			mod(&bad)
			if _, _, err := a2efront.Open(hosts, bad); !errors.Is(err, a2efront.ErrInvalidConfig) {
				t.Fatalf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}

	srv := redistest.Start(t)
	o.Redis = &platform.Redis{Client: srv.Client, Prefix: "t:", Timeout: redisTimeout}
	var bases [2]string
	for i := range bases {
		f, closeSessions, err := a2efront.Open(hosts, o)
		if err != nil {
			t.Fatal(err)
		}
		r := chi.NewRouter()
		f.Mount(r)
		s := httptest.NewServer(r)
		t.Cleanup(func() { s.Close(); _ = closeSessions() })
		bases[i] = s.URL + "/a2e/lab/"
	}
	a, err := lab.NewSession(testCtx(t), nil, bases[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := a.OpenStream(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	id := send(t, lab.Attach(nil, bases[1], a.SessionID), &a2e.HandshakeReq{AgentID: "x", AgentCaps: []string{"tools"}, AuthToken: aliceKey}, http.StatusAccepted)
	if resp, ok := next(t, a).Body.(*a2e.HandshakeResp); !ok || resp.ReqID != id || !resp.OK {
		t.Fatalf("handshake through the second replica: %+v", resp)
	}
}
