package documents_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

// sepGrants is the capabilityGrants array of the SEP's example card, verbatim.
const sepGrants = `[ { "id": "documents:read", "description": "Read documents accessible to the user principal", "operations": ["retrieve", "search", "list"], "attenuable": true }, { "id": "documents:write", "description": "Create and modify documents", "operations": ["create", "update", "delete"], "attenuable": true, "requires": ["documents:read"] }, { "id": "documents:admin", "description": "Full access (legacy wrapper)", "operations": ["*"], "attenuable": false, "legacy": true } ]`

func getCard(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %q", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCard(t *testing.T) {
	_, srv := newServer(t)
	for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		t.Run(path, func(t *testing.T) {
			raw := getCard(t, srv.URL+path)
			var card a2a.AgentCard
			if err := json.Unmarshal(raw, &card); err != nil {
				t.Fatalf("card does not parse as a2a.AgentCard: %v", err)
			}
			if card.Name != "documents" || card.URL != srv.URL || card.Version == "" || !card.Capabilities.Streaming {
				t.Errorf("name/url/version/streaming = %q %q %q %v", card.Name, card.URL, card.Version, card.Capabilities.Streaming)
			}
			if len(card.Capabilities.Extensions) != 1 || card.Capabilities.Extensions[0].URI != documents.CapabilityExtensionURI {
				t.Errorf("extensions = %+v, want the capability extension", card.Capabilities.Extensions)
			}
			var ids []string
			for _, s := range card.Skills {
				ids = append(ids, s.ID)
			}
			want := []string{"retrieve_document", "search_documents", "list_documents", "update_document", "delete_document"}
			if string(indent(t, ids)) != string(indent(t, want)) {
				t.Errorf("skills = %v, want %v", ids, want)
			}
			var extra struct {
				Grants json.RawMessage `json:"capabilityGrants"`
				Min    string          `json:"min_protocol_version"`
				Max    string          `json:"max_protocol_version"`
			}
			if err := json.Unmarshal(raw, &extra); err != nil {
				t.Fatal(err)
			}
			if extra.Min != "0.1" || extra.Max != "1.0" {
				t.Errorf("protocol range = %q..%q, want 0.1..1.0", extra.Min, extra.Max)
			}
			var got, wantGrants any
			_ = json.Unmarshal(extra.Grants, &got)
			_ = json.Unmarshal([]byte(sepGrants), &wantGrants)
			if string(indent(t, got)) != string(indent(t, wantGrants)) {
				t.Errorf("capabilityGrants =\n%s\nwant the SEP example\n%s", indent(t, got), indent(t, wantGrants))
			}
		})
	}
}

func TestCardGolden(t *testing.T) {
	a, err := documents.New(documents.Options{BaseURL: "http://127.0.0.1:9101", Logger: discardLogger(), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "card.golden.json", append(a.CardJSON(), '\n'))
}

func TestCardNotFoundAndMethods(t *testing.T) {
	a, srv := newServer(t)
	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/.well-known/other.json", http.StatusNotFound},
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodPut, "/", http.StatusMethodNotAllowed},
		{http.MethodDelete, "/.well-known/agent.json", http.StatusMethodNotAllowed},
		{http.MethodGet, "/a2a/documents/.well-known/agent-card.json", http.StatusOK},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.want)
		}
	}
	if got := a.Recorder().Count(); got != 5 {
		t.Errorf("recorder count = %d, want 5 (every request, refused ones included)", got)
	}
}

func TestMarshalCardMergesObjects(t *testing.T) {
	raw, err := documents.MarshalCard(a2a.AgentCard{Name: "x", Capabilities: a2a.AgentCapabilities{Streaming: true}},
		map[string]any{"capabilities": map[string]any{"pushNotifications": false}, "name": "y", "extra": 1})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Name         string         `json:"name"`
		Extra        int            `json:"extra"`
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "y" || got.Extra != 1 || got.Capabilities["streaming"] != true || got.Capabilities["pushNotifications"] != false {
		t.Errorf("merged card = %+v", got)
	}
}
