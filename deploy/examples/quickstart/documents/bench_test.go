package documents_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

func benchAgent(b *testing.B) http.Handler {
	b.Helper()
	a, err := documents.New(documents.Options{BaseURL: "http://127.0.0.1:9101", Logger: discardLogger(), Now: fixedNow})
	if err != nil {
		b.Fatal(err)
	}
	return a.Handler()
}

func benchPost(b *testing.B, h http.Handler, body string) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
		if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"error"`) {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkSkillInvoke measures one retrieve_document through the front.
func BenchmarkSkillInvoke(b *testing.B) {
	benchPost(b, benchAgent(b), `{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","arguments":{"resourceId":"reports/q1-financial"},"capabilityId":"cap_1"}}`)
}

// BenchmarkResolve measures one a2a/resources/resolve with a filter.
func BenchmarkResolve(b *testing.B) {
	benchPost(b, benchAgent(b), `{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":{"principal":"user:alice@example.com","collection":"reports","filter":{"quarter":"2025-Q1"}}}`)
}

// BenchmarkSendMessageV1 measures a v1.0 SendMessage rewritten for a2asrv.
func BenchmarkSendMessageV1(b *testing.B) {
	benchPost(b, benchAgent(b), `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`)
}
