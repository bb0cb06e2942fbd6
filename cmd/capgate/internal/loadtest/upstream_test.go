package loadtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestUpstream(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantBody                 string
	}{
		{"invoke echoes a number id", "POST", "/", `{"jsonrpc":"2.0","id":42,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document"}}`,
			200, `{"jsonrpc":"2.0","id":42,"result":` + fixedResult + `}`},
		{"string id echoed as written", "POST", "/any/path", `{"id":"a\"b","method":"message/send","jsonrpc":"2.0"}`,
			200, `{"jsonrpc":"2.0","id":"a\"b","result":` + fixedResult + `}`},
		{"notification answered with id null", "POST", "/", `{"jsonrpc":"2.0","method":"tasks/get"}`,
			200, `{"jsonrpc":"2.0","id":null,"result":` + fixedResult + `}`},
		{"resolve", "POST", "/", `{"jsonrpc":"2.0","id":1,"method":"a2a/resources/resolve","params":{"collection":"reports"}}`,
			200, `{"jsonrpc":"2.0","id":1,"result":` + resolveResult + `}`},
		{"escaped method is not resolve", "POST", "/", `{"id":1,"method":"a2a\/resources\/resolve"}`,
			200, `{"jsonrpc":"2.0","id":1,"result":` + fixedResult + `}`},
		{"no method", "POST", "/", `{"jsonrpc":"2.0","id":1,"result":{}}`, 200, parseErrorAnswer},
		{"garbage", "POST", "/", `not json`, 200, parseErrorAnswer},
		{"batch", "POST", "/", `[{"jsonrpc":"2.0","id":1,"method":"x"}]`, 200, parseErrorAnswer},
		{"card", "GET", "/.well-known/agent-card.json", "", 200, upstreamCard},
		{"legacy card path", "GET", "/.well-known/agent.json", "", 200, upstreamCard},
		{"other GET", "GET", "/", "", 405, methodNotAllowedText},
		{"PUT", "PUT", "/", "{}", 405, methodNotAllowedText},
	}
	u := NewUpstream()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			u.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body)))
			if rec.Code != tt.wantStatus || rec.Body.String() != tt.wantBody {
				t.Fatalf("got %d %s\nwant %d %s", rec.Code, rec.Body, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

// The upstream reads at most MaxUpstreamBody: a larger body is refused,
// not buffered whole.
func TestUpstreamBoundsTheBody(t *testing.T) {
	u := NewUpstream()
	big := `{"id":1,"method":"x","params":"` + strings.Repeat("a", MaxUpstreamBody) + `"}`
	r := &countingReader{r: strings.NewReader(big)}
	rec := httptest.NewRecorder()
	u.ServeHTTP(rec, httptest.NewRequest("POST", "/", r))
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", rec.Code)
	}
	if r.n > MaxUpstreamBody+1 {
		t.Fatalf("read %d bytes, want at most %d", r.n, MaxUpstreamBody+1)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// The whole body is read even when the answer could be written early.
func TestUpstreamReadsTheWholeBody(t *testing.T) {
	body := `{"id":1,"method":"x","params":{"pad":"` + strings.Repeat("p", 100_000) + `"}}`
	r := &countingReader{r: strings.NewReader(body)}
	rec := httptest.NewRecorder()
	NewUpstream().ServeHTTP(rec, httptest.NewRequest("POST", "/", r))
	if r.n != len(body) || CheckResponse(rec.Code, rec.Body.Bytes()) != nil {
		t.Fatalf("read %d of %d bytes; answer %d %s", r.n, len(body), rec.Code, rec.Body)
	}
}

func TestUpstreamAnswerDoesNotAllocate(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document"}}`)
	dst := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { dst = answer(dst[:0], body, nil) }); n != 0 {
		t.Fatalf("answer allocates %.0f times, want 0", n)
	}
}

func TestUpstreamCountsCalls(t *testing.T) {
	u := NewUpstream()
	for _, m := range []string{"POST", "POST", "GET"} {
		u.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(m, "/.well-known/agent-card.json", strings.NewReader(`{}`)))
	}
	if u.Calls() != 2 {
		t.Fatalf("Calls = %d, want 2 (card fetches are not calls)", u.Calls())
	}
}

// The card and the resolve answer are pinned in golden files.
func TestUpstreamGolden(t *testing.T) {
	for name, doc := range map[string]string{"card.golden.json": upstreamCard, "resolve.golden.json": resolveResult} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		golden(t, name, b.Bytes())
	}
}
