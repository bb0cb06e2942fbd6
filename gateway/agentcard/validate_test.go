package agentcard_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
)

// decode parses a JSON card literal the way the gateway's fetch does.
func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad card literal %s: %v", s, err)
	}
	return m
}

const aware = `{"protocolVersion":"0.3.0","min_protocol_version":"0.1","max_protocol_version":"1.0",
	"capabilities":{"streaming":true,"extensions":[{"uri":"https://github.com/a2aproject/A2A/sep/capability-negotiation"}]}}`

func TestValidate(t *testing.T) {
	delegated := []string{agentcard.ReqCapabilityExtension}
	tests := []struct {
		name    string
		card    string
		need    agentcard.Requirements
		wantErr error
	}{
		{name: "fit", card: aware, need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: []string{"streaming", "capability_extension"}}},
		{name: "no requirements", card: aware, need: agentcard.Requirements{ProtocolVersion: "1.0"}},
		{name: "null card", card: `null`, need: agentcard.Requirements{ProtocolVersion: "0.3"}, wantErr: agentcard.ErrMalformedCard},
		{name: "capabilities null", card: `{"protocolVersion":"0.3","capabilities":null}`, need: agentcard.Requirements{ProtocolVersion: "0.3"}, wantErr: agentcard.ErrMalformedCard},
		{name: "no capabilities member", card: `{"protocolVersion":"0.3"}`, need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: []string{"streaming"}}, wantErr: agentcard.ErrMissingCapability},
		{name: "version above", card: aware, need: agentcard.Requirements{ProtocolVersion: "1.1"}, wantErr: agentcard.ErrVersionMismatch},
		{name: "empty version", card: aware, need: agentcard.Requirements{}, wantErr: agentcard.ErrInvalidRequirements},
		{name: "unknown requirement", card: aware, need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: []string{"STREAMING"}}, wantErr: agentcard.ErrInvalidRequirements},
		{name: "empty requirement name", card: aware, need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: []string{""}}, wantErr: agentcard.ErrInvalidRequirements},
		// Attacks: an agent that does not declare the extension in
		// capabilities.extensions must not pass for capability-aware.
		{name: "extension at top level", card: `{"protocolVersion":"0.3","extensions":[{"uri":"https://github.com/a2aproject/A2A/sep/capability-negotiation"}],"capabilities":{}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: delegated}, wantErr: agentcard.ErrMissingCapability},
		{name: "extension uri in description", card: `{"protocolVersion":"0.3","capabilities":{"extensions":[{"uri":"urn:x","description":"https://github.com/a2aproject/A2A/sep/capability-negotiation"}]}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: delegated}, wantErr: agentcard.ErrMissingCapability},
		{name: "extension as bare string", card: `{"protocolVersion":"0.3","capabilities":{"extensions":["https://github.com/a2aproject/A2A/sep/capability-negotiation"]}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: delegated}, wantErr: agentcard.ErrMalformedCard},
		{name: "extension uri not a string", card: `{"protocolVersion":"0.3","capabilities":{"extensions":[{"uri":["https://github.com/a2aproject/A2A/sep/capability-negotiation"]}]}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: delegated}, wantErr: agentcard.ErrMalformedCard},
		{name: "extension uri with space", card: `{"protocolVersion":"0.3","capabilities":{"extensions":[{"uri":" https://github.com/a2aproject/A2A/sep/capability-negotiation"}]}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: delegated}, wantErr: agentcard.ErrMissingCapability},
		{name: "streaming as number", card: `{"protocolVersion":"0.3","capabilities":{"streaming":1}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: []string{"streaming"}}, wantErr: agentcard.ErrMalformedCard},
		{name: "streaming null", card: `{"protocolVersion":"0.3","capabilities":{"streaming":null}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3"}, wantErr: agentcard.ErrMalformedCard},
		{name: "deprecated flag not bool", card: `{"protocolVersion":"0.3","capabilities":{"artifact_streaming":"yes"}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3"}, wantErr: agentcard.ErrMalformedCard},
		{name: "range only min valid other malformed", card: `{"min_protocol_version":"0.3","max_protocol_version":"","capabilities":{}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3"}, wantErr: agentcard.ErrMalformedCard},
		{name: "malformed protocolVersion refused under a range", card: `{"protocolVersion":"zzz","min_protocol_version":"0.3","capabilities":{}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3"}, wantErr: agentcard.ErrMalformedCard},
		{name: "protocolVersion does not hide interfaces", card: `{"protocolVersion":"0.3","capabilities":{},"supportedInterfaces":[
			{"url":"https://a.example","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"https://a.example","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}`,
			need: agentcard.Requirements{ProtocolVersion: "1.0"}},
		{name: "gRPC interface does not count", card: `{"protocolVersion":"0.3","capabilities":{},"supportedInterfaces":[
			{"url":"a.example:443","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`,
			need: agentcard.Requirements{ProtocolVersion: "1.0"}, wantErr: agentcard.ErrVersionMismatch},
		{name: "range and interfaces are a union", card: `{"min_protocol_version":"0.1","max_protocol_version":"0.3","capabilities":{},
			"supportedInterfaces":[{"url":"https://a.example","protocolBinding":"jsonrpc","protocolVersion":"1.0"}]}`,
			need: agentcard.Requirements{ProtocolVersion: "1.0"}},
		{name: "interfaces without versions", card: `{"supportedInterfaces":[{"url":"https://a.example"}],"capabilities":{}}`,
			need: agentcard.Requirements{ProtocolVersion: "1.0"}, wantErr: agentcard.ErrVersionMismatch},
		{name: "legacy ambient", card: `{"protocolVersion":"0.3.0","capabilities":{}}`,
			need: agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: delegated, AllowLegacyAmbient: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := agentcard.Validate(decode(t, tt.card), tt.need)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Errorf("Validate = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestValidateTypedErrors checks the fields and messages of the typed
// errors.
func TestValidateTypedErrors(t *testing.T) {
	err := agentcard.Validate(decode(t, aware), agentcard.Requirements{ProtocolVersion: "1.1"})
	var mm *agentcard.VersionMismatchError
	if !errors.As(err, &mm) || mm.Wanted != "1.1" || mm.Min != "0.1" || mm.Max != "1.0" {
		t.Fatalf("err = %#v", err)
	}
	if want := "agentcard: protocol version mismatch: wanted 1.1, agent supports [0.1, 1.0]"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	err = agentcard.Validate(decode(t, `{"max_protocol_version":"0.2","capabilities":{}}`), agentcard.Requirements{ProtocolVersion: "0.3"})
	if want := "wanted 0.3, agent supports [*, 0.2]"; !strings.Contains(errString(err), want) {
		t.Errorf("open range: %v, want %q", err, want)
	}
	err = agentcard.Validate(decode(t, `{"capabilities":{}}`), agentcard.Requirements{ProtocolVersion: "0.3"})
	if want := "card declares no protocol version"; !strings.Contains(errString(err), want) {
		t.Errorf("no version: %v, want %q", err, want)
	}
	err = agentcard.Validate(decode(t, aware), agentcard.Requirements{ProtocolVersion: "0.3",
		Capabilities: []string{"push_notifications", "streaming", "multi_tenant", "push_notifications"}})
	var missing *agentcard.MissingCapabilityError
	if !errors.As(err, &missing) || missing.Capability != "push_notifications" ||
		!slices.Equal(missing.Missing, []string{"push_notifications", "multi_tenant"}) {
		t.Fatalf("err = %#v", err)
	}
	if want := "agentcard: missing capability: agent does not declare push_notifications, multi_tenant"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

// TestValidateDoesNotModify checks that Validate leaves the card and the
// requirements alone, and answers the same way every time (map iteration
// order must not leak into the verdict).
func TestValidateDoesNotModify(t *testing.T) {
	c := loadConformance(t)
	for _, v := range c.Vectors {
		card := c.Cards[v.Card]
		before, _ := json.Marshal(card)
		need := v.requirements()
		caps := slices.Clone(need.Capabilities)
		first := errString(agentcard.Validate(card, need))
		for range 20 {
			if got := errString(agentcard.Validate(card, need)); got != first {
				t.Fatalf("%s: verdict changed: %q then %q", v.ID, first, got)
			}
		}
		after, _ := json.Marshal(card)
		if string(before) != string(after) || !slices.Equal(caps, need.Capabilities) {
			t.Errorf("%s: Validate modified its input", v.ID)
		}
	}
}

func TestRequirementsFor(t *testing.T) {
	tests := []struct {
		method    string
		delegated bool
		want      []string
	}{
		{"message/send", false, nil},
		{"SendMessage", false, nil},
		{"tasks/send", false, nil},
		{"tasks/get", false, nil},
		{"message/send", true, []string{"capability_extension"}},
		{"a2a/task/send", true, []string{"capability_extension"}},
		{"message/stream", false, []string{"streaming"}},
		{"SendStreamingMessage", true, []string{"streaming", "capability_extension"}},
		{"tasks/sendSubscribe", true, []string{"streaming", "capability_extension"}},
		{"tasks/resubscribe", false, []string{"streaming"}},
		{"SubscribeToTask", false, []string{"streaming"}},
		{"TaskResubscription", false, []string{"streaming"}},
		{"tasks/pushNotificationConfig/set", false, []string{"push_notifications"}},
		{"tasks/pushNotificationConfig/get", false, []string{"push_notifications"}},
		{"tasks/pushNotificationConfig/list", false, []string{"push_notifications"}},
		{"tasks/pushNotificationConfig/delete", false, []string{"push_notifications"}},
		{"tasks/pushNotification/set", false, []string{"push_notifications"}},
		{"tasks/pushNotification/get", false, []string{"push_notifications"}},
		{"CreateTaskPushNotificationConfig", false, []string{"push_notifications"}},
		{"SetTaskPushNotificationConfig", false, []string{"push_notifications"}},
		{"GetTaskPushNotificationConfig", false, []string{"push_notifications"}},
		{"ListTaskPushNotificationConfig", false, []string{"push_notifications"}},
		{"DeleteTaskPushNotificationConfig", false, []string{"push_notifications"}},
		{"Message/Stream", false, nil}, // exact names only
		{"", false, nil},
	}
	for _, tt := range tests {
		if got := agentcard.RequirementsFor(tt.method, tt.delegated); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("RequirementsFor(%q, %v) = %v, want %v", tt.method, tt.delegated, got, tt.want)
		}
	}
}

func TestReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("other"), ""},
		{agentcard.ErrFetch, ""},
		{&agentcard.VersionMismatchError{Wanted: "1"}, agentcard.ReasonVersionMismatch},
		{&agentcard.MissingCapabilityError{Capability: "x", Missing: []string{"x"}}, agentcard.ReasonMissingCapability},
		{agentcard.ErrMalformedCard, agentcard.ReasonMalformedCard},
		{agentcard.ErrInvalidRequirements, agentcard.ReasonInvalidRequirements},
	}
	for _, tt := range tests {
		if got := agentcard.Reason(tt.err); got != tt.want {
			t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestUnderstandsCapabilities(t *testing.T) {
	tests := []struct {
		card string
		want bool
	}{
		{aware, true},
		{`{"capabilities":{"extensions":[{"uri":"urn:other"},{"uri":"https://github.com/a2aproject/A2A/sep/capability-negotiation","required":false}]}}`, true},
		{`{"capabilities":{}}`, false},
		{`{}`, false},
		{`null`, false},
		{`{"capabilities":{"extensions":[{"uri":"https://github.com/a2aproject/A2A/sep/capability-negotiation/"}]}}`, false},
		{`{"capabilities":{"extensions":"https://github.com/a2aproject/A2A/sep/capability-negotiation"}}`, false},
	}
	for _, tt := range tests {
		if got := agentcard.UnderstandsCapabilities(decode(t, tt.card)); got != tt.want {
			t.Errorf("UnderstandsCapabilities(%s) = %v, want %v", tt.card, got, tt.want)
		}
	}
}
