package discovery_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/capgate/capgate/gateway/discovery"
)

// FuzzSnapshotCard feeds arbitrary upstream cards to Snapshot. The card is
// untrusted: it must never panic Snapshot, and it must never change what
// the principal may do (tools and grants come from the policy alone).
func FuzzSnapshotCard(f *testing.F) {
	if data, err := os.ReadFile("testdata/documents_card.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"name":5,"skills":"x","capabilities":[],"defaultOutputModes":[1,"a","a"],"provider":"p"}`))
	f.Add([]byte(`{"skills":[{"id":"search_documents","description":"injected"},{"id":"delete_document"}],"capabilities":{"streaming":"yes"}}`))
	f.Add([]byte(`{}`))
	p := quickstartPolicy(f)
	base := quickstartInput(f, "bob", p)
	base.Card = nil
	ref, err := discovery.Snapshot(context.Background(), base)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var card map[string]any
		if json.Unmarshal(data, &card) != nil {
			return
		}
		in := base
		in.Card = card
		snap, err := discovery.Snapshot(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(toolNames(snap), toolNames(ref)) || !reflect.DeepEqual(snap.Custom, ref.Custom) ||
			!reflect.DeepEqual(snap.MultiAgent, ref.MultiAgent) {
			t.Fatalf("the card changed what bob may do: %+v", snap)
		}
		if _, err := json.Marshal(snap); err != nil {
			t.Fatal(err)
		}
	})
}
