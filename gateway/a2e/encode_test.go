package a2e

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var goldenTime = time.Date(2025, 1, 9, 12, 0, 0, 789000000, time.UTC)

// TestEncodeGolden encodes one message of each kind the gateway writes and
// compares the lines with testdata/encode.golden.
func TestEncodeGolden(t *testing.T) {
	cases := []struct {
		env  Envelope
		body Body
	}{
		{NewEnvelope("", "e1", goldenTime, KeyA2E, Version1),
			&Error{ReqID: "c1", Code: CodeCapabilityMissing, Message: "capability env was not negotiated", CapabilityName: "env"}},
		{NewEnvelope("", "e2", goldenTime, KeyVersion, Version1),
			&Error{ReqID: "c2", Code: CodeTooManyRequests, Retryable: true}},
		{NewEnvelope("", "r1", goldenTime, KeyA2E, Version1),
			&HandshakeResp{ReqID: "h1", SessionID: "s1", MaxParallel: 4, OK: true, AcceptedCaps: []Capability{
				{Capability: "tools", Enabled: true, Metadata: map[string]any{"name": "basic-tools", "type": "tools", "priority": 0, "exclusive": false}},
				{Capability: "chains", Metadata: map[string]any{"reason": "no plugin loaded"}},
			}}},
		{NewEnvelope("", "r2", goldenTime, KeyA2E, Version1), &HandshakeResp{ReqID: "h2", OK: false, Reason: ReasonAuthFailed}},
		{NewEnvelope("", "p1", goldenTime, "", ""), &Ping{}},
		{Envelope{ID: "t1", TS: 1716123456.789, Key: KeyA2E, Version: Version1},
			&ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "<hi & bye>"}}},
	}
	var got bytes.Buffer
	for _, c := range cases {
		line, err := Encode(c.env, c.body)
		if err != nil {
			t.Fatalf("Encode(%T): %v", c.body, err)
		}
		if _, err := DecodeLine(line, 0); err != nil {
			t.Errorf("Encode(%T) produced a line DecodeLine refuses: %v\n%s", c.body, err, line)
		}
		got.Write(line)
		got.WriteByte('\n')
	}
	golden(t, "encode.golden", got.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestEncodeTypeMismatch(t *testing.T) {
	if _, err := Encode(Envelope{Type: TypePing, ID: "x"}, &Pong{}); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("err = %v, want ErrTypeMismatch", err)
	}
	if _, err := Encode(Envelope{ID: "x"}, nil); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("nil body: err = %v, want ErrTypeMismatch", err)
	}
}

func TestRewriteKeepsUnknownMembers(t *testing.T) {
	m, err := DecodeLine([]byte(`{"a2e":"1.0","type":"handshake/req","id":"h","agent_caps":["tools","env"],"auth_token":"alice","x_extra":{"k":"<v>"}}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Rewrite(map[string]any{"auth_token": "host-secret", "agent_caps": []string{"tools"}, "gone": nil})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a2e":"1.0","agent_caps":["tools"],"auth_token":"host-secret","id":"h","type":"handshake/req","x_extra":{"k":"<v>"}}`
	if string(out) != want {
		t.Errorf("Rewrite = %s\nwant      %s", out, want)
	}
	if string(m.Members["auth_token"]) != `"alice"` {
		t.Errorf("Rewrite changed the message's own members")
	}
}

func TestRewriteDropsCaseVariants(t *testing.T) {
	m, err := DecodeLine([]byte(`{"type":"handshake/req","id":"h","agent_caps":["tools"],"Auth_Token":"alice","\u017fession":"x"}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Rewrite(map[string]any{"auth_token": "host-secret", "agent_caps": []string{"tools"}, "session": "s"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"agent_caps":["tools"],"auth_token":"host-secret","id":"h","session":"s","type":"handshake/req"}`
	if string(out) != want {
		t.Errorf("Rewrite = %s\nwant      %s", out, want)
	}
}

func TestEnvelopeReplyKeepsVersionKey(t *testing.T) {
	in := Envelope{Type: TypePing, ID: "p", Version: "1.0", Key: KeyVersion}
	r := in.Reply(TypeError, "e", goldenTime, "9.9")
	if r.Key != KeyVersion || r.Version != "1.0" {
		t.Errorf("Reply = %+v, want key version 1.0", r)
	}
	r = Envelope{}.Reply(TypeError, "e", goldenTime, Version1)
	if r.Key != KeyA2E || r.Version != Version1 {
		t.Errorf("Reply without version = %+v", r)
	}
	if got := r.Time(); !got.Equal(goldenTime) {
		t.Errorf("Time() = %v, want %v", got, goldenTime)
	}
}
