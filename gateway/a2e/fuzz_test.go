package a2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecodeLine checks that DecodeLine never panics, fails with exactly
// one sentinel, and that what it accepts encoding/json reads the same way:
// the same type and id under their exact names.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"a2e":"1.0","type":"handshake/req","id":"a1","ts":1716123456.789,"agent_id":"x","agent_caps":["tools"],"auth_token":"k"}`,
		`{"version":"1.0","type":"tool/call/req","id":"c","tool_name":"echo","arguments":{"text":"hi"}}`,
		`{"type":"ping","id":"p","Type":"env/step/req"}`,
		`{"type":"ping","id":"p","typ\u0065":"x"}`,
		`{"type":"chain/run/req","id":"c"}`,
		`{"type":"handshake/resp","id":"r","req_id":"h","accepted_caps":[{"capability":"tools","enabled":true}]}`,
		`{"type":"error","id":"e","code":"x"}`, `{}`, `[]`, `"x"`, "{\"type\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := DecodeLine(line, 4096)
		if err != nil {
			n := 0
			for _, s := range []error{ErrParse, ErrTooLarge, ErrInvalidMessage} {
				if errors.Is(err, s) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("error %v wraps %d sentinels", err, n)
			}
			return
		}
		var ref struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if err := json.Unmarshal(m.Raw, &ref); err != nil {
			t.Fatalf("accepted a line encoding/json refuses: %v", err)
		}
		if ref.Type != m.Type || ref.ID != m.ID {
			t.Fatalf("encoding/json reads type %q id %q, DecodeLine %q %q", ref.Type, ref.ID, m.Type, m.ID)
		}
		if !KnownType(m.Type) || m.Body == nil || m.Body.MessageType() != m.Type {
			t.Fatalf("accepted type %q with body %T", m.Type, m.Body)
		}
		if !bytes.Contains(line, m.Raw) {
			t.Fatalf("Raw is not part of the line")
		}
	})
}
