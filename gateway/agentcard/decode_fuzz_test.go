package agentcard_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
)

// FuzzDecode feeds arbitrary bytes to the strict card decoder. A text it
// refuses is refused with ErrCardRefused; a card it accepts is the card
// encoding/json reads, and the card served for it (Rewrite) is one Decode
// accepts too: it never holds two spellings of a member.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"lookalike_upstream.json", "both_upstream.json", "legacy_upstream.json"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"url":"a","URL":"b"}`))
	f.Add([]byte(`{"skills":[{"id":"a","\u0069d":"b"}]}`))
	f.Add([]byte(`{"capabilities":{"extensions":[{"uri":"u","params":{"K":1,"\u212a":2}}]}}`))
	f.Add([]byte(`{"ſignatures":[],"signatures":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		card, err := agentcard.Decode(data)
		if err != nil {
			if !errors.Is(err, agentcard.ErrCardRefused) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		var plain map[string]any
		if err := json.Unmarshal(data, &plain); err != nil || !reflect.DeepEqual(plain, card) {
			t.Fatalf("Decode read %v, encoding/json %v (%v)", card, plain, err)
		}
		served, err := json.Marshal(agentcard.Rewrite(card, goldenConfig(false)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := agentcard.Decode(served); err != nil {
			t.Fatalf("served card %s refused: %v", served, err)
		}
	})
}
