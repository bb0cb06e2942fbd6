package agentcard_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
)

// FuzzValidate feeds arbitrary cards, versions and requirement lists to
// Validate. It must never panic, must answer with a known reason, and the
// served card (WithTiers) must get exactly the upstream card's verdict.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(aware), "0.3", "streaming,capability_extension", false)
	f.Add([]byte(`{"protocolVersion":"0.3.0","capabilities":{"streaming":"x"}}`), "1.0", "push_notifications", true)
	f.Add([]byte(`{"supportedInterfaces":[{"protocolVersion":"1.0"}],"capabilities":{"extensions":[{}]}}`), "1", "", false)
	f.Add([]byte(`{"min_protocol_version":"1.0","max_protocol_version":"0.9"}`), "0.9.9", "urn:x", false)
	if data, err := os.ReadFile(conformancePath); err == nil {
		var c conformance
		if json.Unmarshal(data, &c) == nil {
			for _, v := range c.Vectors {
				card, _ := json.Marshal(c.Cards[v.Card])
				need := v.requirements()
				f.Add(card, need.ProtocolVersion, strings.Join(need.Capabilities, ","), need.AllowLegacyAmbient)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, wanted, reqs string, ambient bool) {
		var card map[string]any
		if json.Unmarshal(data, &card) != nil {
			return
		}
		need := agentcard.Requirements{ProtocolVersion: wanted, AllowLegacyAmbient: ambient}
		if reqs != "" {
			need.Capabilities = strings.Split(reqs, ",")
		}
		err := agentcard.Validate(card, need)
		if err != nil && agentcard.Reason(err) == "" {
			t.Fatalf("error without a reason: %v", err)
		}
		served := agentcard.Validate(agentcard.WithTiers(card), need)
		if errString(served) != errString(err) {
			t.Fatalf("served card: %v, upstream card: %v", served, err)
		}
		if again := agentcard.Validate(card, need); errString(again) != errString(err) {
			t.Fatalf("not deterministic: %v then %v", err, again)
		}
	})
}
