package a2afront

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkServeInvoke is one allowed a2a/skill/invoke decided and
// forwarded through the agent's proxy to the recording upstream over
// loopback, with the headers a typical caller sends. Allocations are
// counted for the whole process (upstream included).
func BenchmarkServeInvoke(b *testing.B) {
	fx := newFixture(b)
	c := fx.issue(b)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","capabilityId":%q,"arguments":{"resourceHandle":%q}}}`,
		c.ID, c.ResourceHandles[0].Handle)
	call := fx.call(b, aliceKey, "documents", body)
	hr := httptest.NewRequest("POST", "/a2a/documents", strings.NewReader(body))
	for k, v := range map[string]string{
		"Authorization": "Bearer " + aliceKey, "Content-Type": "application/json",
		"Accept": "application/json", "User-Agent": "bench/1.0", "Accept-Encoding": "gzip",
		"Traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	} {
		hr.Header.Set(k, v)
	}
	call.http = hr
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		fx.front.serveOne(w, hr, call)
		if w.Code != 200 || strings.Contains(w.Body.String(), `"error"`) {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
