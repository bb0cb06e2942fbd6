package agentcard_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/agentcard"
)

// TestSourceSigns checks that a source's served card carries its own
// signature and never the upstream's, and that a card it cannot sign is
// not served at all (ErrUnsigned), while a source without a signer serves
// its cards unsigned.
func TestSourceSigns(t *testing.T) {
	upstream, err := os.ReadFile("testdata/v1_upstream.json") // carries the upstream's signature
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(upstream) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/.well-known/agent-card.json")
	tests := []struct {
		name    string
		sign    func(map[string]any) (any, error)
		want    []any
		wantErr error
	}{
		{"signed", func(card map[string]any) (any, error) {
			if _, ok := card["signatures"]; ok {
				return nil, errors.New("asked to sign a card that carries signatures")
			}
			return map[string]any{"protected": "p", "signature": "s"}, nil
		}, []any{map[string]any{"protected": "p", "signature": "s"}}, nil},
		{"cannot sign", func(map[string]any) (any, error) { return nil, errors.New("no key") }, nil, agentcard.ErrUnsigned},
		{"no signer", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := agentcard.NewSource(agentcard.Config{Agent: "x", CardURLs: []*url.URL{u}, PublicURL: served, Sign: tt.sign},
				http.DefaultTransport, time.Now, slog.New(slog.DiscardHandler))
			b, raw, err := src.Card(context.Background())
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Card() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if b != nil || raw != nil {
					t.Errorf("Card() = %s, %v with error %v", b, raw, err)
				}
				return
			}
			var card map[string]any
			if err := json.Unmarshal(b, &card); err != nil {
				t.Fatal(err)
			}
			got, _ := card["signatures"].([]any)
			if g, w := mustJSON(t, got), mustJSON(t, tt.want); g != w {
				t.Errorf("signatures %s, want %s", g, w)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
