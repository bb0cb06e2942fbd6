package agentcard_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
)

// Cards of the three kinds of upstream, as the range computation reads
// them.
const (
	cardV03  = `{"url":"http://up/rpc","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","capabilities":{}}`
	cardV1   = `{"supportedInterfaces":[{"url":"http://up/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{}}`
	cardBoth = `{"url":"http://up/v03","preferredTransport":"JSONRPC","protocolVersion":"0.3","capabilities":{},"supportedInterfaces":[` +
		`{"url":"http://up/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"http://up/v03","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}`
	cardRange = `{"protocolVersion":"0.3.0","min_protocol_version":"0.1","max_protocol_version":"1.0","capabilities":{}}`
)

func TestCheckMethod(t *testing.T) {
	tests := []struct {
		name, card, method, header string
		wantErr                    error
		wantWanted                 string
	}{
		{"v0.3 name to v0.3 card", cardV03, "message/send", "", nil, ""},
		{"v0.3 name with header", cardV03, "message/stream", "0.3", nil, ""},
		{"v0.1 name to v0.3-only card", cardV03, "tasks/send", "", agentcard.ErrVersionMismatch, "0.1"},
		{"v0.1 streaming name to v0.3-only card", cardV03, "tasks/sendSubscribe", "", agentcard.ErrVersionMismatch, "0.1"},
		{"v0.1 name under header 0.3", cardRange, "tasks/send", "0.3", agentcard.ErrVersionMismatch, "0.3"},
		{"v0.1 name to a 0.1 range", cardRange, "tasks/send", "", nil, ""},
		{"shared v0.1 name to v0.3 card", cardV03, "tasks/get", "", nil, ""},
		{"v1.0 name to v0.3-only card", cardV03, "SendMessage", "1.0", agentcard.ErrVersionMismatch, "1.0"},
		{"v1.0 name without header to v0.3-only card", cardV03, "SendMessage", "", agentcard.ErrVersionMismatch, "1.0"},
		{"v1.0 name to v1.0 card", cardV1, "SendMessage", "1.0", nil, ""},
		{"v1.0 name without header to v1.0 card", cardV1, "GetTask", "", nil, ""},
		{"v0.3 name to v1.0-only card", cardV1, "message/send", "", agentcard.ErrVersionMismatch, "0.3"},
		{"v0.3 name under header 1.0", cardV1, "message/send", "1.0", agentcard.ErrVersionMismatch, "1.0"},
		{"v1.0 streaming to both", cardBoth, "SendStreamingMessage", "1.0", nil, ""},
		{"v0.3 streaming to both", cardBoth, "message/stream", "", nil, ""},
		{"v0.1 name to both", cardBoth, "tasks/send", "", agentcard.ErrVersionMismatch, "0.1"},
		{"header above the range", cardRange, "SendMessage", "1.1", agentcard.ErrVersionMismatch, "1.1"},
		{"extension method without header", cardV03, "a2a/skill/invoke", "", nil, ""},
		{"extension method under 1.0", cardV1, "a2a/skill/invoke", "1.0", nil, ""},
		{"extension method without header to v1.0 card", cardV1, "a2a/skill/invoke", "", agentcard.ErrVersionMismatch, "0.3"},
		{"unparseable header", cardV03, "message/send", "v1", agentcard.ErrInvalidRequirements, ""},
		{"malformed card", `{"protocolVersion":3}`, "message/send", "", agentcard.ErrMalformedCard, ""},
		{"null card", `null`, "message/send", "", agentcard.ErrMalformedCard, ""},
		{"card without versions", `{"capabilities":{}}`, "message/send", "", agentcard.ErrVersionMismatch, "0.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := agentcard.CheckMethod(decode(t, tt.card), tt.method, tt.header)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("CheckMethod = %v, want %v", err, tt.wantErr)
			}
			var vm *agentcard.VersionMismatchError
			if errors.As(err, &vm) && vm.Wanted != tt.wantWanted {
				t.Errorf("Wanted = %q, want %q", vm.Wanted, tt.wantWanted)
			}
		})
	}
}

// TestVersionRange pins what each kind of card supports, through the
// mismatch a version none of them speaks (2.0) gets.
func TestVersionRange(t *testing.T) {
	tests := []struct {
		name, card string
		want       agentcard.VersionMismatchError
		wantText   string
	}{
		{"v0.3 only", cardV03, agentcard.VersionMismatchError{Wanted: "2.0", Min: "0.3.0", Max: "0.3.0"},
			"wanted 2.0, agent supports [0.3.0, 0.3.0]"},
		{"v1.0 only", cardV1, agentcard.VersionMismatchError{Wanted: "2.0", Min: "1.0", Max: "1.0"},
			"wanted 2.0, agent supports [1.0, 1.0]"},
		{"both, protocolVersion 0.3", cardBoth, agentcard.VersionMismatchError{Wanted: "2.0", Versions: []string{"0.3", "1.0"}},
			"wanted 2.0, agent supports 0.3, 1.0"},
		{"contract range", cardRange, agentcard.VersionMismatchError{Wanted: "2.0", Min: "0.1", Max: "1.0"},
			"wanted 2.0, agent supports [0.1, 1.0]"},
		{"range and an interface above it", `{"max_protocol_version":"0.3","supportedInterfaces":[{"url":"u","protocolVersion":"1.0"}]}`,
			agentcard.VersionMismatchError{Wanted: "2.0", Max: "0.3", Versions: []string{"1.0"}}, "wanted 2.0, agent supports [*, 0.3], 1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := agentcard.CheckMethod(decode(t, tt.card), "SendMessage", "2.0")
			var vm *agentcard.VersionMismatchError
			if !errors.As(err, &vm) {
				t.Fatalf("CheckMethod = %v, want a mismatch", err)
			}
			if vm.Wanted != "2.0" || vm.Min != tt.want.Min || vm.Max != tt.want.Max || !slices.Equal(vm.Versions, tt.want.Versions) {
				t.Errorf("mismatch = %+v, want %+v", *vm, tt.want)
			}
			if got := vm.Error(); got != "agentcard: protocol version mismatch: "+tt.wantText {
				t.Errorf("Error() = %q", got)
			}
		})
	}
}
