package a2e

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeLine(t *testing.T) {
	const hs = `{"a2e":"1.0","type":"handshake/req","id":"a1b2c3d4","ts":1716123456.789,"agent_id":"my-agent","agent_caps":["tools","memory","env"],"auth_token":"dev-secret"}`
	tests := []struct {
		name    string
		line    string
		max     int
		wantErr error
		check   func(t *testing.T, m Message)
	}{
		{name: "spec handshake", line: hs, check: func(t *testing.T, m Message) {
			b := m.Body.(*HandshakeReq)
			want := HandshakeReq{AgentID: "my-agent", AgentCaps: []string{"tools", "memory", "env"}, AuthToken: "dev-secret"}
			if !reflect.DeepEqual(*b, want) || m.Version != "1.0" || m.Key != KeyA2E || m.TS != 1716123456.789 || m.ID != "a1b2c3d4" {
				t.Errorf("got %+v %+v", m.Envelope, *b)
			}
		}},
		{name: "line end allowed", line: hs + "\r\n"},
		{name: "version spelled version", line: `{"version":"1.0","type":"ping","id":"p1"}`, check: func(t *testing.T, m Message) {
			if m.Key != KeyVersion || m.Version != "1.0" {
				t.Errorf("key %q version %q", m.Key, m.Version)
			}
		}},
		{name: "both spellings agreeing", line: `{"version":"1.0","a2e":"1.0","type":"ping","id":"p1"}`},
		{name: "both spellings disagreeing", line: `{"version":"2.0","a2e":"1.0","type":"ping","id":"p1"}`, wantErr: ErrInvalidMessage},
		{name: "version not a string", line: `{"a2e":1.0,"type":"ping","id":"p1"}`, wantErr: ErrInvalidMessage},
		{name: "unknown members kept", line: `{"type":"tool/call/req","id":"c1","tool_name":"echo","x_trace":{"a":[1,2]}}`, check: func(t *testing.T, m Message) {
			if string(m.Members["x_trace"]) != `{"a":[1,2]}` {
				t.Errorf("x_trace = %s", m.Members["x_trace"])
			}
		}},
		{name: "generic namespaced type", line: `{"type":"chain/run/req","id":"c1","dag":{}}`, check: func(t *testing.T, m Message) {
			if g, ok := m.Body.(*Generic); !ok || g.Type != "chain/run/req" {
				t.Errorf("body %#v", m.Body)
			}
		}},
		{name: "response req_id", line: `{"type":"skill/run/resp","id":"r1","req_id":"c1"}`, check: func(t *testing.T, m Message) {
			if m.ReqID() != "c1" {
				t.Errorf("ReqID = %q", m.ReqID())
			}
		}},
		{name: "too large", line: hs, max: 20, wantErr: ErrTooLarge},
		{name: "empty", line: "", wantErr: ErrParse},
		{name: "blank", line: " \t", wantErr: ErrParse},
		{name: "garbage", line: "hello", wantErr: ErrParse},
		{name: "array", line: `[{"type":"ping","id":"p"}]`, wantErr: ErrParse},
		{name: "two objects", line: `{"type":"ping","id":"p"}{"type":"ping","id":"q"}`, wantErr: ErrParse},
		{name: "two lines", line: "{\"type\":\"ping\",\"id\":\"p\"}\n{\"type\":\"ping\",\"id\":\"q\"}", wantErr: ErrParse},
		{name: "truncated", line: `{"type":"ping","id":"p"`, wantErr: ErrParse},
		{name: "duplicate type", line: `{"type":"ping","id":"p","type":"env/step/req"}`, wantErr: ErrParse},
		{name: "escaped duplicate type", line: `{"type":"ping","id":"p","typ\u0065":"env/step/req"}`, wantErr: ErrParse},
		{name: "case-variant type", line: `{"type":"ping","id":"p","Type":"env/step/req"}`, wantErr: ErrParse},
		{name: "nested duplicate", line: `{"type":"tool/call/req","id":"c","tool_name":"echo","arguments":{"a":1,"a":2}}`, wantErr: ErrParse},
		{name: "invalid utf8", line: "{\"type\":\"ping\",\"id\":\"\xff\"}", wantErr: ErrParse},
		{name: "lone surrogate", line: `{"type":"ping","id":"\ud800"}`, wantErr: ErrParse},
		{name: "too deep", line: `{"type":"ping","id":"p","x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, wantErr: ErrParse},
		{name: "upper-case Type only", line: `{"TYPE":"env/step/req","id":"p"}`, wantErr: ErrInvalidMessage},
		{name: "missing type", line: `{"id":"p"}`, wantErr: ErrInvalidMessage},
		{name: "missing id", line: `{"type":"ping"}`, wantErr: ErrInvalidMessage},
		{name: "empty id", line: `{"type":"ping","id":""}`, wantErr: ErrInvalidMessage},
		{name: "numeric id", line: `{"type":"ping","id":7}`, wantErr: ErrInvalidMessage},
		{name: "long id", line: `{"type":"ping","id":"` + strings.Repeat("i", MaxIDLength+1) + `"}`, wantErr: ErrInvalidMessage},
		{name: "unknown type", line: `{"type":"teleport/req","id":"p"}`, wantErr: ErrInvalidMessage},
		{name: "type without verb", line: `{"type":"tool/","id":"p"}`, wantErr: ErrInvalidMessage},
		{name: "type with upper case", line: `{"type":"tool/Call/req","id":"p"}`, wantErr: ErrInvalidMessage},
		{name: "type not a string", line: `{"type":["ping"],"id":"p"}`, wantErr: ErrInvalidMessage},
		{name: "ts a string", line: `{"type":"ping","id":"p","ts":"now"}`, wantErr: ErrInvalidMessage},
		{name: "ts negative", line: `{"type":"ping","id":"p","ts":-1}`, wantErr: ErrInvalidMessage},
		{name: "agent_caps missing", line: `{"type":"handshake/req","id":"h","auth_token":"k"}`, wantErr: ErrInvalidMessage},
		{name: "agent_caps null", line: `{"type":"handshake/req","id":"h","agent_caps":null}`, wantErr: ErrInvalidMessage},
		{name: "agent_caps a string", line: `{"type":"handshake/req","id":"h","agent_caps":"tools"}`, wantErr: ErrInvalidMessage},
		{name: "tool_name missing", line: `{"type":"tool/call/req","id":"c"}`, wantErr: ErrInvalidMessage},
		{name: "arguments not an object", line: `{"type":"tool/call/req","id":"c","tool_name":"echo","arguments":[1]}`, wantErr: ErrInvalidMessage},
		{name: "resp without req_id", line: `{"type":"tool/call/resp","id":"r","ok":true}`, wantErr: ErrInvalidMessage},
		{name: "long req_id", line: `{"type":"pong","id":"r","req_id":"` + strings.Repeat("r", MaxIDLength+1) + `"}`, wantErr: ErrInvalidMessage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := DecodeLine([]byte(tc.line), tc.max)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("DecodeLine() error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && tc.check != nil {
				tc.check(t, m)
			}
		})
	}
}

// TestDecodeLineErrorsAreExclusive checks that each failure wraps exactly
// one of the three sentinels, so a front maps it to one wire code.
func TestDecodeLineErrorsAreExclusive(t *testing.T) {
	for _, line := range []string{"", "x", `{"type":"x","id":"y"}`, `{"type":"ping","id":"p","Id":"q"}`, strings.Repeat("a", 100)} {
		_, err := DecodeLine([]byte(line), 64)
		n := 0
		for _, s := range []error{ErrParse, ErrTooLarge, ErrInvalidMessage} {
			if errors.Is(err, s) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("DecodeLine(%q) = %v: wraps %d sentinels, want 1", line, err, n)
		}
	}
}

func TestDecodeLineTypedBodies(t *testing.T) {
	tests := []struct {
		line string
		want Body
	}{
		{`{"type":"tool/call/req","id":"c","tool_name":"echo","arguments":{"text":"hi"},"session_id":"s","correlation_id":"k","streaming":true,"timeout":2.5}`,
			&ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "hi"}, SessionID: "s", CorrelationID: "k", Streaming: true, Timeout: 2.5}},
		{`{"type":"memory/store/req","id":"m","memory_id":"notes","entries":[{"key":"a","value":"b"}]}`,
			&MemoryStoreReq{MemoryID: "notes", Entries: []MemoryEntry{{Key: "a", Value: "b"}}}},
		{`{"type":"error","id":"e","req_id":"c","code":"capability_missing","capability_name":"env","retryable":false}`,
			&Error{ReqID: "c", Code: "capability_missing", CapabilityName: "env"}},
		{`{"type":"handshake/resp","id":"r","req_id":"h","session_id":"s","accepted_caps":[{"capability":"tools","enabled":true,"metadata":{"priority":0}}],"max_parallel":4,"ok":true}`,
			&HandshakeResp{ReqID: "h", SessionID: "s", MaxParallel: 4, OK: true,
				AcceptedCaps: []Capability{{Capability: "tools", Enabled: true, Metadata: map[string]any{"priority": jsonNumber("0")}}}}},
		{`{"type":"env/step/req","id":"s","action":"right"}`, &EnvStepReq{Action: "right"}},
		{`{"type":"invoke/event","id":"v","req_id":"c","event":"progress"}`, &InvokeEvent{ReqID: "c", Event: "progress"}},
	}
	for _, tc := range tests {
		m, err := DecodeLine([]byte(tc.line), 0)
		if err != nil {
			t.Fatalf("DecodeLine(%s): %v", tc.line, err)
		}
		if !reflect.DeepEqual(m.Body, tc.want) {
			t.Errorf("DecodeLine(%s).Body = %#v, want %#v", tc.line, m.Body, tc.want)
		}
	}
}
