package agentcard_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
)

// served is the public URL of the agent in these tests.
const served = "http://127.0.0.1:8080/a2a/x"

// checkServed asserts what every served card must hold, whatever the
// upstream card: no signature, no upstream URL, interfaces only at the
// gateway and only JSON-RPC ones, and the same version verdict as the
// upstream card for every method generation and Major.Minor header, but
// for calls in the version the gateway serves the agent by translation.
func checkServed(t *testing.T, upstream map[string]any) {
	t.Helper()
	card := agentcard.Rewrite(upstream, goldenConfig(false))
	if _, ok := card["signatures"]; ok {
		t.Error("served card carries the upstream's signatures")
	}
	ifaces, _ := card["supportedInterfaces"].([]any)
	for _, e := range ifaces {
		m := e.(map[string]any)
		if m["url"] != served || !strings.EqualFold(m["protocolBinding"].(string), "JSONRPC") {
			t.Errorf("served interface %v", m)
		}
	}
	if _, hadURL := upstream["url"]; hadURL && card["url"] != served {
		t.Errorf("url = %v", card["url"])
	}
	if agentcard.CheckMethod(upstream, "message/send", "") != nil && errors.Is(agentcard.CheckMethod(upstream, "message/send", ""), agentcard.ErrMalformedCard) {
		return
	}
	for _, method := range []string{"tasks/send", "tasks/get", "message/send", "SendMessage", "a2a/skill/invoke"} {
		for _, header := range []string{"", "0.1", "0.2", "0.3", "1.0", "1.1", "2.0"} {
			want := agentcard.CheckMethod(upstream, method, header)
			got := agentcard.CheckMethod(card, method, header)
			var vm *agentcard.VersionMismatchError
			if translatedFor(upstream, agentcard.SpokenVersion(method, header)) && errors.As(want, &vm) && vm.Method == "" {
				// The gateway serves this version for the agent by translating.
				if got != nil {
					t.Errorf("%s under %q: served card %v, want it served by translation", method, header, got)
				}
				continue
			}
			if (want == nil) != (got == nil) {
				t.Errorf("%s under %q: served card %v, upstream card %v", method, header, got, want)
			}
		}
	}
}

// translatedFor reports whether the gateway serves version for the agent
// of upstream by translation.
func translatedFor(upstream map[string]any, version string) bool {
	return (agentcard.Translated(upstream) && version == agentcard.TranslatedVersion) ||
		(agentcard.TranslatedTo1(upstream) && version == "0.3")
}

func TestRewriteServedCards(t *testing.T) {
	for _, tt := range goldenCards {
		t.Run(tt.upstream, func(t *testing.T) {
			upstream := readCard(t, tt.upstream)
			checkServed(t, upstream)
			data, _ := json.Marshal(agentcard.Rewrite(upstream, goldenConfig(false)))
			for _, leak := range []string{"10.0.0.7", ".internal", "c2lnbmVk"} {
				if strings.Contains(string(data), leak) {
					t.Errorf("served card contains %q: %s", leak, data)
				}
			}
		})
	}
}

// TestRewriteShapes pins which generation's members each kind of upstream
// card keeps.
func TestRewriteShapes(t *testing.T) {
	tests := []struct {
		upstream                 string
		wantURL, wantV03Security bool
		wantInterfaces           []string
	}{
		{"v1_upstream.json", true, true, []string{"1.0", "0.3"}}, // 0.3 by translation
		{"both_upstream.json", true, true, []string{"1.0", "0.3"}},
		{"legacy_upstream.json", true, true, []string{"0.3", "1.0"}}, // 1.0 by translation
		{"documents_upstream.json", true, true, []string{"1.0", "0.3"}},
	}
	for _, tt := range tests {
		t.Run(tt.upstream, func(t *testing.T) {
			card := agentcard.Rewrite(readCard(t, tt.upstream), goldenConfig(false))
			_, hasURL := card["url"]
			_, hasPT := card["preferredTransport"]
			if hasURL != tt.wantURL || hasPT != tt.wantURL {
				t.Errorf("url %v, preferredTransport %v, want %v", hasURL, hasPT, tt.wantURL)
			}
			if _, ok := card["security"]; ok != tt.wantV03Security {
				t.Errorf("v0.3 security present = %v, want %v", ok, tt.wantV03Security)
			}
			if _, ok := card["securityRequirements"]; !ok {
				t.Error("no v1.0 securityRequirements")
			}
			var got []string
			for _, e := range card["supportedInterfaces"].([]any) {
				got = append(got, e.(map[string]any)["protocolVersion"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tt.wantInterfaces, ",") {
				t.Errorf("interfaces %v, want %v", got, tt.wantInterfaces)
			}
		})
	}
}

// FuzzRewrite feeds arbitrary upstream cards to Rewrite: it never panics
// and every served card holds what checkServed asserts.
func FuzzRewrite(f *testing.F) {
	for _, tt := range goldenCards {
		data, err := readTestdata(tt.upstream)
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"supportedInterfaces":[{"protocolBinding":"jsonrpc","protocolVersion":"1.0","tenant":"t"},{"protocolVersion":7}]}`))
	f.Add([]byte(`{"min_protocol_version":"0.3.1","signatures":null,"skills":[1,{"security":2}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var upstream map[string]any
		if json.Unmarshal(data, &upstream) != nil || upstream == nil {
			return
		}
		checkServed(t, upstream)
	})
}
