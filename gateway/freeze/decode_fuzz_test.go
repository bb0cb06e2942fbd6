package freeze

import (
	"testing"
	"time"
)

// FuzzDecode: whatever a value of the hash or a message holds, decode
// either refuses it or returns an entry the set accepts whose encoding
// decodes to itself.
func FuzzDecode(f *testing.F) {
	e := Entry{Kind: Agent, Name: "billing", Frozen: true, By: "alice", Reason: "why",
		At: time.UnixMilli(1_700_000_000_000).UTC(), Nonce: newNonce()}
	v, body, _ := encode(e)
	f.Add(v + body)
	f.Add("9999999999999999:garbage")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := decode(s)
		if err != nil {
			return
		}
		if got.check() != nil {
			t.Fatalf("decode accepted an invalid entry %+v", got)
		}
		v, body, err := encode(got)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decode(v + body)
		if err != nil || again.version() != got.version() || again.key() != got.key() || again.Frozen != got.Frozen {
			t.Fatalf("round trip: %+v, %v", again, err)
		}
	})
}
