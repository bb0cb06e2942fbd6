package quickstart

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
)

func a2eSteps() []step {
	return []step{
		{"alice opens an A2E session with the lab host and asks for tools, memory, env and chains", stepA2EHandshake},
		{"alice calls the lab's echo tool: the host answers", stepA2ETool},
		{"alice sends env/reset/req: refused by the gateway with capability_missing, never forwarded", stepA2EEnvRefused},
		{"bob negotiates tools only; a bad auth_token gets auth_failed", stepA2EBob},
	}
}

// a2eMsg is the part of an A2E message the walkthrough reads.
type a2eMsg struct {
	Type         string `json:"type"`
	ReqID        string `json:"req_id"`
	OK           bool   `json:"ok"`
	Reason       string `json:"reason"`
	Code         string `json:"code"`
	Capability   string `json:"capability_name"`
	AcceptedCaps []struct {
		Capability string         `json:"capability"`
		Enabled    bool           `json:"enabled"`
		Metadata   map[string]any `json:"metadata"`
	} `json:"accepted_caps"`
	Result json.RawMessage `json:"result"`
}

// a2eSession opens a session through the gateway and its stream.
func (s *session) a2eSession(ctx context.Context) (*lab.Client, error) {
	c, err := lab.NewSession(ctx, &http.Client{}, s.w.URL+"/a2e/lab/")
	if err != nil {
		return nil, err
	}
	if err := c.OpenStream(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// exchange sends one line and waits for the message answering it.
func exchange(ctx context.Context, c *lab.Client, id, line string) (*a2eMsg, error) {
	if status, body, err := c.Send(ctx, []byte(line)); err != nil || status >= 400 {
		return nil, fmt.Errorf("send: HTTP %d %s %v", status, body, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		raw, err := c.NextLine(ctx)
		if err != nil {
			return nil, fmt.Errorf("no answer to %s: %w", id, err)
		}
		var m a2eMsg
		if json.Unmarshal(raw, &m) == nil && m.ReqID == id {
			return &m, nil
		}
	}
}

func handshake(ctx context.Context, c *lab.Client, id, token string, caps ...string) (*a2eMsg, error) {
	b, _ := json.Marshal(caps)
	return exchange(ctx, c, id, fmt.Sprintf(`{"a2e":"1.0","type":"handshake/req","id":%q,"ts":%d,"agent_id":"demo","agent_caps":%s,"auth_token":%q}`,
		id, time.Now().Unix(), b, token))
}

func acceptedText(m *a2eMsg) string {
	var out []string
	for _, c := range m.AcceptedCaps {
		if c.Enabled {
			out = append(out, c.Capability+": enabled")
		} else {
			out = append(out, fmt.Sprintf("%s: disabled (%v)", c.Capability, c.Metadata["reason"]))
		}
	}
	return strings.Join(out, ", ")
}

func stepA2EHandshake(ctx context.Context, s *session) (string, error) {
	c, err := s.a2eSession(ctx)
	if err != nil {
		return "", err
	}
	s.a2e = c
	m, err := handshake(ctx, c, "hs-1", AliceKey, "tools", "memory", "env", "chains")
	if err != nil {
		return "", err
	}
	got := acceptedText(m)
	want := "tools: enabled, memory: enabled, env: disabled (denied by policy), chains: disabled (no plugin loaded)"
	if !m.OK || got != want {
		return "", fmt.Errorf("handshake/resp ok=%v: %s, want %s", m.OK, got, want)
	}
	return "handshake/resp accepted_caps: " + got, nil
}

func stepA2ETool(ctx context.Context, s *session) (string, error) {
	m, err := exchange(ctx, s.a2e, "call-1", `{"a2e":"1.0","type":"tool/call/req","id":"call-1","ts":1,"tool_name":"echo","arguments":{"text":"hello lab"}}`)
	if err != nil {
		return "", err
	}
	if m.Type != "tool/call/resp" {
		return "", fmt.Errorf("want tool/call/resp, got %s %s", m.Type, m.Code)
	}
	return "tool/call/resp: " + string(m.Result), nil
}

func stepA2EEnvRefused(ctx context.Context, s *session) (string, error) {
	before := s.w.Lab.Recorder().Count()
	m, err := exchange(ctx, s.a2e, "env-1", `{"a2e":"1.0","type":"env/reset/req","id":"env-1","ts":1}`)
	if err != nil {
		return "", err
	}
	if m.Type != "error" || m.Code != "capability_missing" || m.Capability != "env" {
		return "", fmt.Errorf("want error capability_missing for env, got %s %s %s", m.Type, m.Code, m.Capability)
	}
	if n := s.w.Lab.Recorder().Count(); n != before {
		return "", fmt.Errorf("the lab received %d message(s); a refused one must never reach it", n-before)
	}
	s.a2e.Close()
	return `error {"code":"capability_missing","capability_name":"env"}; the lab saw nothing`, nil
}

func stepA2EBob(ctx context.Context, s *session) (string, error) {
	c, err := s.a2eSession(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	m, err := handshake(ctx, c, "hs-bob", BobKey, "tools", "memory")
	if err != nil {
		return "", err
	}
	if got := acceptedText(m); !m.OK || got != "tools: enabled, memory: disabled (denied by policy)" {
		return "", fmt.Errorf("bob's handshake: %s", got)
	}
	c2, err := s.a2eSession(ctx)
	if err != nil {
		return "", err
	}
	defer c2.Close()
	bad, err := handshake(ctx, c2, "hs-bad", "mallory-key", "tools")
	if err != nil {
		return "", err
	}
	if bad.OK || bad.Reason != "auth_failed" {
		return "", fmt.Errorf("bad token: ok=%v reason=%s", bad.OK, bad.Reason)
	}
	return "bob: " + acceptedText(m) + "\nmallory-key: handshake/resp ok=false reason=auth_failed", nil
}
