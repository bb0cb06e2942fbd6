package summarizer_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/deploy/examples/quickstart/summarizer"
)

func TestCard(t *testing.T) {
	_, srv := newAgent(t, "http://127.0.0.1:1/a2a/documents")
	for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var card a2a.AgentCard
		if err := json.Unmarshal(raw, &card); err != nil {
			t.Fatal(err)
		}
		if card.Name != "summarizer" || card.URL != srv.URL || card.Capabilities.Streaming {
			t.Errorf("%s: name/url/streaming = %q %q %v", path, card.Name, card.URL, card.Capabilities.Streaming)
		}
		if len(card.Capabilities.Extensions) != 1 || card.Capabilities.Extensions[0].URI != documents.CapabilityExtensionURI {
			t.Errorf("%s: extensions = %+v", path, card.Capabilities.Extensions)
		}
		var extra struct {
			Capabilities map[string]any  `json:"capabilities"`
			Grants       json.RawMessage `json:"capabilityGrants"`
			Min          string          `json:"min_protocol_version"`
			Max          string          `json:"max_protocol_version"`
		}
		if err := json.Unmarshal(raw, &extra); err != nil {
			t.Fatal(err)
		}
		if s, present := extra.Capabilities["streaming"]; !present || s != false {
			t.Errorf("%s: capabilities.streaming must be an explicit false, got %v (present %v)", path, s, present)
		}
		if extra.Grants != nil || extra.Min != "0.1" || extra.Max != "1.0" {
			t.Errorf("%s: grants %s, range %q..%q", path, extra.Grants, extra.Min, extra.Max)
		}
	}
}

func TestCardGolden(t *testing.T) {
	a, err := summarizer.New(summarizer.Options{
		BaseURL: "http://127.0.0.1:9102", DocumentsURL: "http://127.0.0.1:8080/a2a/documents",
		Credential: devKey, Logger: slog.New(slog.DiscardHandler), Now: fixedNow,
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "card.golden.json", append(a.CardJSON(), '\n'))
}

func TestRecorderSeesEveryRequest(t *testing.T) {
	gw := newFakeGateway(t)
	a, srv := newAgent(t, gw.srv.URL)
	call(t, srv.URL, "SendMessage", sendIn("SendMessage", "hi", nil), http.Header{"A2a-Capability-Id": {"cap_1"}})
	call(t, srv.URL, "a2a/capabilities/request", map[string]any{}, nil)
	reqs := a.Recorder().Requests()
	if a.Recorder().Count() != 2 || len(reqs) != 2 {
		t.Fatalf("recorded %d", a.Recorder().Count())
	}
	if reqs[0].RPCMethod != "SendMessage" || reqs[0].Header.Get("A2A-Capability-Id") != "cap_1" || reqs[1].RPCMethod != "a2a/capabilities/request" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestOptionsValidate(t *testing.T) {
	ok := summarizer.Options{
		BaseURL: "http://127.0.0.1:9102", DocumentsURL: "http://127.0.0.1:8080/a2a/documents",
		Credential: devKey, Logger: slog.New(slog.DiscardHandler), Now: fixedNow,
	}
	tests := []struct {
		name    string
		mutate  func(*summarizer.Options)
		wantErr error
	}{
		{"valid", func(*summarizer.Options) {}, nil},
		{"no base url", func(o *summarizer.Options) { o.BaseURL = "" }, summarizer.ErrInvalidOptions},
		{"relative documents url", func(o *summarizer.Options) { o.DocumentsURL = "/a2a/documents" }, summarizer.ErrInvalidOptions},
		{"no credential", func(o *summarizer.Options) { o.Credential = "" }, summarizer.ErrInvalidOptions},
		{"no logger", func(o *summarizer.Options) { o.Logger = nil }, summarizer.ErrInvalidOptions},
		{"no clock", func(o *summarizer.Options) { o.Now = nil }, summarizer.ErrInvalidOptions},
		{"negative timeout", func(o *summarizer.Options) { o.InvokeTimeout = -1 }, summarizer.ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.mutate(&o)
			_, err := summarizer.New(o)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("New err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestMalformedCapabilitiesMatchesInvalidParams(t *testing.T) {
	if !errors.Is(summarizer.ErrMalformedCapabilities, documents.ErrInvalidParams) {
		t.Error("ErrMalformedCapabilities must match documents.ErrInvalidParams so the front answers -32602")
	}
}

func ExampleFormatAnswer() {
	fmt.Println(summarizer.FormatAnswer([]summarizer.Outcome{
		{Handle: "rh_001", DisplayName: "Q1 Financial Summary", Title: "Q1 Financial Summary", FirstLine: "Q1 2025 revenue grew 12%."},
		{Handle: "rh_002", DisplayName: "Q1 Sales Report", Refused: true, Code: -32043, Reason: "capability_revoked"},
	}))
	// Output:
	// Summaries of 2 delegated document(s):
	// - Q1 Financial Summary: Q1 2025 revenue grew 12%.
	// - Q1 Sales Report: refused (capability_revoked)
}
