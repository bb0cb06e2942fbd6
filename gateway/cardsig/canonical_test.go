package cardsig_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"testing"

	"github.com/capgate/capgate/gateway/cardsig"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, card, want string
		wantErr          error
	}{
		// A2A v1.0 §8.4.1's example, as the SDKs canonicalize it: the empty
		// description and skills go too.
		{"spec example", `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}`,
			`{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}`, nil},
		{"members outside v1.0 and signatures", `{"name":"a","url":"http://x/","capabilityGrants":[{"id":"g"}],"signatures":[{"protected":"p","signature":"s"}]}`,
			`{"name":"a"}`, nil},
		{"proto names", `{"supported_interfaces":[{"url":"http://x/","protocol_binding":"JSONRPC","protocol_version":"1.0","tenant":""}]}`,
			`{"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"http://x/"}]}`, nil},
		{"JSON name wins", `{"documentationUrl":"a","documentation_url":"b"}`, `{"documentationUrl":"a"}`, nil},
		{"non-optional false dropped", `{"capabilities":{"extensions":[{"uri":"u","required":false,"params":{"a":"","b":[],"c":{"d":null},"e":0}}]}}`,
			`{"capabilities":{"extensions":[{"params":{"e":0},"uri":"u"}]}}`, nil},
		{"first oneof variant", `{"securitySchemes":{"s":{"httpAuthSecurityScheme":{"scheme":"Bearer"},"type":"http","openIdConnectSecurityScheme":{"openIdConnectUrl":"u"}}}}`,
			`{"securitySchemes":{"s":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}}}`, nil},
		{"oauth flow", `{"securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"client_credentials":{"token_url":"t","scopes":{"r":"read"}}}}}}}`,
			`{"securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"scopes":{"r":"read"},"tokenUrl":"t"}}}}}}`, nil},
		{"empty requirement", `{"securityRequirements":[{"schemes":{"bearer":{"list":[]}}}]}`, `{}`, nil},
		{"null is absent", `{"name":null,"version":"1"}`, `{"version":"1"}`, nil},
		{"name not a string", `{"name":7}`, "", cardsig.ErrNotCanonical},
		{"streaming not a boolean", `{"capabilities":{"streaming":"yes"}}`, "", cardsig.ErrNotCanonical},
		{"tags not strings", `{"skills":[{"id":"s","tags":[1]}]}`, "", cardsig.ErrNotCanonical},
		{"skills not a list", `{"skills":{}}`, "", cardsig.ErrNotCanonical},
		{"params not an object", `{"capabilities":{"extensions":[{"params":[]}]}}`, "", cardsig.ErrNotCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cardsig.Canonical(decode(t, tt.card))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Canonical() error = %v, want %v", err, tt.wantErr)
			}
			if string(got) != tt.want {
				t.Errorf("Canonical() = %s\nwant          %s", got, tt.want)
			}
		})
	}
}

// TestJCS checks RFC 8785's own examples: number serialization (§3.2.2.3,
// Appendix B) and member order by UTF-16 code units with ECMAScript
// string escapes (§3.2.3).
func TestJCS(t *testing.T) {
	numbers := map[string]string{
		"0": "0", "-0": "0", "1e21": "1e+21", "1e-7": "1e-7", "0.000001": "0.000001", "4.50": "4.5",
		"2e-3": "0.002", "123456789012345680000": "123456789012345680000", "1.7976931348623157e308": "1.7976931348623157e+308",
		"5e-324": "5e-324", "-1.5e-9": "-1.5e-9", "333333333.3333333": "333333333.3333333", "9007199254740992": "9007199254740992",
	}
	for in, want := range numbers {
		got, err := cardsig.Canonical(decode(t, `{"capabilities":{"extensions":[{"uri":"u","params":{"n":`+in+`}}]}}`))
		if err != nil {
			t.Fatal(err)
		}
		if w := `{"capabilities":{"extensions":[{"params":{"n":` + want + `},"uri":"u"}]}}`; string(got) != w {
			t.Errorf("number %s: %s, want %s", in, got, w)
		}
	}
	got, err := cardsig.Canonical(decode(t, `{"capabilities":{"extensions":[{"uri":"u","params":{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control\u001f","\u00f6":"Latin Small Letter O With Diaeresis","<&>":"\u2028"}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"capabilities\":{\"extensions\":[{\"params\":{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"<&>\":\"\u2028\",\"\u0080\":\"Control\\u001f\"," +
		"\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"},\"uri\":\"u\"}]}}"
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestCanonicalGolden pins the canonical form of a card as the gateway
// serves it.
func TestCanonicalGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/documents_card.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := cardsig.Canonical(decode(t, string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/documents_card.canonical"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil || string(got) != string(want) {
		t.Errorf("canonical form differs from %s (%v):\n%s", golden, err, got)
	}
}

// FuzzCanonical checks that any JSON object either has a canonical form
// or fails with ErrNotCanonical, and that a canonical form is its own.
func FuzzCanonical(f *testing.F) {
	raw, _ := os.ReadFile("testdata/documents_card.json")
	f.Add(raw)
	f.Add([]byte(`{"securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"implicit":{"scopes":{"a":"b"}}}}}},"capabilities":{"extensions":[{"params":{"x":1e300}}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var card map[string]any
		if json.Unmarshal(b, &card) != nil {
			return
		}
		got, err := cardsig.Canonical(card)
		if err != nil {
			if !errors.Is(err, cardsig.ErrNotCanonical) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		var again map[string]any
		if err := json.Unmarshal(got, &again); err != nil {
			t.Fatalf("canonical form is not JSON: %s", got)
		}
		if twice, err := cardsig.Canonical(again); err != nil || string(twice) != string(got) {
			t.Fatalf("canonical form of %s is %s (%v)", got, twice, err)
		}
	})
}
