package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/proxy"
)

// seen is what an upstream received of one request.
type seen struct {
	header  http.Header
	trailer http.Header
	te      []string
	length  int64
	body    string
}

// frontOf serves a Proxy whose every request carries o, in front of an
// upstream that reports what it received on got.
func frontOf(t *testing.T, o proxy.Outbound) (addr string, got <-chan seen) {
	t.Helper()
	ch := make(chan seen, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ch <- seen{header: r.Header.Clone(), trailer: r.Trailer.Clone(), te: r.TransferEncoding, length: r.ContentLength, body: string(b)}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(up.Close)
	target, _ := url.Parse(up.URL)
	p := proxy.New(target, proxy.Options{Transport: proxy.NewTransport()})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.ServeHTTP(w, r.WithContext(proxy.WithOutbound(r.Context(), o)))
	}))
	t.Cleanup(front.Close)
	return front.Listener.Addr().String(), ch
}

// rawPost writes a request to addr exactly as given and reads the status.
func rawPost(t *testing.T, addr, request string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// frontOutbound is a front's Outbound: it vouches for a capability, sets
// its own body and one header of its own.
type frontOutbound struct{ body string }

func (frontOutbound) Vouched() (proxy.Context, bool) {
	return proxy.Context{CapabilityID: "cap_real", Principal: "user:alice"}, true
}

func (o frontOutbound) Prepare(out *http.Request) {
	proxy.SetBody(out, []byte(o.body))
	out.Header.Set("Content-Type", "application/json")
	out.Header.Set("X-Set-By-Front", "yes")
}

// TestCallerBodyDescriptionDropped: a chunked caller's trailers (here
// credentials and a capability header) and the headers that described
// its body never reach the upstream when the gateway sets the body; the
// upstream receives the gateway's body with its length, not chunked.
func TestCallerBodyDescriptionDropped(t *testing.T) {
	const decided = `{"jsonrpc":"2.0","id":1,"method":"m"}`
	addr, got := frontOf(t, frontOutbound{body: decided})
	callerBody := `{"caller":1}`
	status := rawPost(t, addr, "POST /a2a/x HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n"+
		"Trailer: A2A-Capability-Principal, Authorization\r\nContent-Encoding: br\r\nDigest: sha-256=abc\r\n"+
		"Content-Range: bytes 0-1/2\r\n\r\n"+
		fmt.Sprintf("%x\r\n%s\r\n0\r\n", len(callerBody), callerBody)+
		"A2A-Capability-Principal: user:mallory\r\nAuthorization: Bearer stolen\r\n\r\n")
	if status != http.StatusNoContent {
		t.Fatalf("status %d", status)
	}
	s := <-got
	if s.body != decided || s.length != int64(len(decided)) || len(s.te) != 0 {
		t.Fatalf("upstream got body %q, length %d, transfer encoding %v; want the decided body with its length", s.body, s.length, s.te)
	}
	if len(s.trailer) != 0 {
		t.Errorf("upstream got trailers %v", s.trailer)
	}
	for _, k := range []string{"Content-Encoding", "Digest", "Content-Range", "Trailer", "Authorization"} {
		if v := s.header.Values(k); len(v) > 0 {
			t.Errorf("upstream got %s: %v", k, v)
		}
	}
	if v := s.header.Get(proxy.HeaderCapabilityPrincipal); v != "user:alice" {
		t.Errorf("upstream got principal %q, want the vouched one", v)
	}
}

// TestConnectionCannotRemoveGatewayHeaders: a caller that names the
// gateway's headers in Connection (hop-by-hop, removed by the proxy)
// cannot make the upstream miss them: the front's and the vouched headers
// are set after hop-by-hop headers are removed.
func TestConnectionCannotRemoveGatewayHeaders(t *testing.T) {
	addr, got := frontOf(t, frontOutbound{body: "{}"})
	status := rawPost(t, addr, "POST /a2a/x HTTP/1.1\r\nHost: gw\r\nContent-Length: 2\r\n"+
		"Connection: Content-Type, X-Set-By-Front, A2A-Capability-Id, X-Forwarded-For\r\n\r\n{}")
	if status != http.StatusNoContent {
		t.Fatalf("status %d", status)
	}
	s := <-got
	for k, want := range map[string]string{
		"Content-Type": "application/json", "X-Set-By-Front": "yes",
		proxy.HeaderCapabilityID: "cap_real", "X-Forwarded-For": "127.0.0.1",
	} {
		if v := s.header.Get(k); v != want {
			t.Errorf("upstream got %s = %q, want %q", k, v, want)
		}
	}
}

// TestForwardingHeadersAreTheProxys: the upstream receives the forwarding
// headers the proxy sets, never the caller's, whatever their spelling.
func TestForwardingHeadersAreTheProxys(t *testing.T) {
	addr, got := frontOf(t, frontOutbound{body: "{}"})
	status := rawPost(t, addr, "POST /a2a/x HTTP/1.1\r\nHost: gw\r\nContent-Length: 2\r\n"+
		"X-Forwarded-For: 10.9.9.9\r\nX_Forwarded_For: 10.8.8.8\r\nX-Forwarded-Host: evil\r\n\r\n{}")
	if status != http.StatusNoContent {
		t.Fatalf("status %d", status)
	}
	s := <-got
	if v := s.header.Values("X-Forwarded-For"); len(v) != 1 || v[0] != "127.0.0.1" {
		t.Errorf("upstream got X-Forwarded-For %v, want only the proxy's", v)
	}
	if v := s.header.Get("X-Forwarded-Host"); v != "gw" {
		t.Errorf("upstream got X-Forwarded-Host %q, want the host the caller reached", v)
	}
	for k := range s.header {
		if strings.Contains(k, "_") {
			t.Errorf("upstream got the caller's look-alike %s", k)
		}
	}
}
