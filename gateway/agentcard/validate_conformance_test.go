package agentcard_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
)

const conformancePath = "../../testdata/conformance/capability-discovery.json"

// conformance is the shape of testdata/conformance/capability-discovery.json.
type conformance struct {
	Name         string                    `json:"name"`
	Description  string                    `json:"description"`
	Format       map[string]string         `json:"format"`
	Semantics    map[string]string         `json:"semantics"`
	ExtensionURI string                    `json:"extension_uri"`
	Cards        map[string]map[string]any `json:"cards"`
	Vectors      []vector                  `json:"vectors"`
}

type vector struct {
	ID           string `json:"id"`
	Description  string `json:"description"`
	Card         string `json:"card"`
	Requirements struct {
		ProtocolVersion    string   `json:"protocol_version"`
		Capabilities       []string `json:"capabilities"`
		Method             string   `json:"method"`
		Delegated          bool     `json:"delegated"`
		AllowLegacyAmbient bool     `json:"allow_legacy_ambient"`
	} `json:"requirements"`
	Expect struct {
		Valid    bool     `json:"valid"`
		Reason   string   `json:"reason"`
		Missing  []string `json:"missing"`
		Wanted   string   `json:"wanted"`
		Min      string   `json:"min"`
		Max      string   `json:"max"`
		Versions []string `json:"versions"`
	} `json:"expect"`
}

// requirements turns a vector's requirements into agentcard.Requirements.
func (v vector) requirements() agentcard.Requirements {
	r := v.Requirements
	caps := append(agentcard.RequirementsFor(r.Method, r.Delegated), r.Capabilities...)
	return agentcard.Requirements{ProtocolVersion: r.ProtocolVersion, Capabilities: caps,
		AllowLegacyAmbient: r.AllowLegacyAmbient}
}

func loadConformance(t *testing.T) conformance {
	t.Helper()
	data, err := os.ReadFile(conformancePath)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c conformance
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%s: %v", conformancePath, err)
	}
	return c
}

// TestConformance runs every capability-discovery vector against Validate.
func TestConformance(t *testing.T) {
	c := loadConformance(t)
	if c.ExtensionURI != agentcard.ExtensionURI {
		t.Errorf("extension_uri = %q, want %q", c.ExtensionURI, agentcard.ExtensionURI)
	}
	if len(c.Vectors) < 20 {
		t.Fatalf("only %d vectors", len(c.Vectors))
	}
	used := map[string]bool{}
	ids := map[string]bool{}
	for _, v := range c.Vectors {
		if ids[v.ID] {
			t.Errorf("duplicate vector id %q", v.ID)
		}
		ids[v.ID] = true
		card, ok := c.Cards[v.Card]
		if !ok {
			t.Errorf("%s: unknown card %q", v.ID, v.Card)
			continue
		}
		used[v.Card] = true
		t.Run(v.ID, func(t *testing.T) { checkVector(t, v, card) })
	}
	for name := range c.Cards {
		if !used[name] {
			t.Errorf("card %q is used by no vector", name)
		}
	}
}

func checkVector(t *testing.T, v vector, card map[string]any) {
	err := agentcard.Validate(card, v.requirements())
	if v.Expect.Valid {
		if err != nil {
			t.Fatalf("%s\nValidate = %v, want valid", v.Description, err)
		}
		return
	}
	if got := agentcard.Reason(err); got != v.Expect.Reason {
		t.Fatalf("%s\nValidate = %v (reason %q), want reason %q", v.Description, err, got, v.Expect.Reason)
	}
	var mm *agentcard.VersionMismatchError
	if errors.As(err, &mm) {
		want := agentcard.VersionMismatchError{Wanted: v.Expect.Wanted, Min: v.Expect.Min, Max: v.Expect.Max, Versions: v.Expect.Versions}
		if mm.Wanted != want.Wanted || mm.Min != want.Min || mm.Max != want.Max || !slices.Equal(mm.Versions, want.Versions) {
			t.Errorf("mismatch = %+v, want %+v", *mm, want)
		}
	}
	var missing *agentcard.MissingCapabilityError
	if errors.As(err, &missing) {
		if !slices.Equal(missing.Missing, v.Expect.Missing) || missing.Capability != v.Expect.Missing[0] {
			t.Errorf("missing = %+v, want %v", *missing, v.Expect.Missing)
		}
	}
}

// TestConformanceServedCard checks that the card the gateway serves
// (WithTiers) validates exactly as the upstream card it derives from: the
// tiers and the derived version range never change a verdict.
func TestConformanceServedCard(t *testing.T) {
	c := loadConformance(t)
	for _, v := range c.Vectors {
		card := c.Cards[v.Card]
		want := agentcard.Validate(card, v.requirements())
		got := agentcard.Validate(agentcard.WithTiers(card), v.requirements())
		if errString(got) != errString(want) {
			t.Errorf("%s: served card: %v, upstream card: %v", v.ID, got, want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
