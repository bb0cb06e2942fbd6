package a2e

// Body is the typed part of a message: every member but the envelope.
type Body interface {
	// MessageType returns the type the body is sent as.
	MessageType() string
}

// HandshakeReq is "handshake/req", the first message of every session.
type HandshakeReq struct {
	// AgentID identifies the agent.
	AgentID string `json:"agent_id"`
	// AgentCaps lists the requested capability names.
	AgentCaps []string `json:"agent_caps" a2e:"required"`
	// AuthToken authenticates the agent.
	AuthToken string `json:"auth_token"`
}

// HandshakeResp is "handshake/resp", the host's answer to HandshakeReq.
type HandshakeResp struct {
	// ReqID is the id of the handshake/req answered.
	ReqID string `json:"req_id" a2e:"required"`
	// SessionID is the session the handshake opened.
	SessionID string `json:"session_id"`
	// AcceptedCaps is the negotiation result, one entry per capability.
	AcceptedCaps []Capability `json:"accepted_caps"`
	// MaxParallel bounds concurrent requests on the session.
	MaxParallel int `json:"max_parallel"`
	// OK reports whether the handshake succeeded.
	OK bool `json:"ok"`
	// Reason says why it failed: auth_failed, version_mismatch, no_caps,
	// server_error.
	Reason string `json:"reason,omitempty"`
}

// Handshake rejection reasons.
const (
	ReasonAuthFailed      = "auth_failed"
	ReasonVersionMismatch = "version_mismatch"
	ReasonNoCaps          = "no_caps"
	ReasonServerError     = "server_error"
)

// DefaultMaxParallel is the max_parallel of the specification's default.
const DefaultMaxParallel = 4

// MarshalJSON writes accepted_caps as a list even when it is empty, as
// the specification requires.
func (r HandshakeResp) MarshalJSON() ([]byte, error) {
	type plain HandshakeResp
	if r.AcceptedCaps == nil {
		r.AcceptedCaps = []Capability{}
	}
	return marshal(plain(r))
}

// Capability is one negotiated capability in HandshakeResp.AcceptedCaps.
type Capability struct {
	// Capability is the capability name.
	Capability string `json:"capability"`
	// Enabled reports whether the session may use it.
	Enabled bool `json:"enabled"`
	// Metadata is capability-specific; a disabled capability carries its
	// reason under "reason".
	Metadata map[string]any `json:"metadata"`
}

// MarshalJSON writes metadata as an object even when it is empty.
func (c Capability) MarshalJSON() ([]byte, error) {
	type plain Capability
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	return marshal(plain(c))
}

// Reason returns Metadata["reason"] when it is a string.
func (c Capability) Reason() string {
	s, _ := c.Metadata["reason"].(string)
	return s
}

// Error is "error", the A2EError.
type Error struct {
	// ReqID is the id of the message refused, when known.
	ReqID string `json:"req_id,omitempty"`
	// Code is a stable machine-readable word, e.g. capability_missing.
	Code string `json:"code" a2e:"required"`
	// Message is for humans.
	Message string `json:"message,omitempty"`
	// Detail carries further structured information.
	Detail any `json:"detail,omitempty"`
	// Retryable says whether sending the same message later may succeed.
	Retryable bool `json:"retryable"`
	// CapabilityName names the missing capability for capability_missing.
	CapabilityName string `json:"capability_name,omitempty"`
}

// Error codes the gateway and the example host write.
const (
	CodeCapabilityMissing = "capability_missing"
	CodeUnauthorized      = "unauthorized"
	CodeTooManyRequests   = "too_many_requests"
	CodeParseError        = "parse_error"
	CodeInvalidMessage    = "invalid_message"
	CodeMessageTooLarge   = "message_too_large"
	CodeUnavailable       = "unavailable"
	CodeUpstreamError     = "upstream_error"
	CodeNotFound          = "not_found"
	CodeInvalidArguments  = "invalid_arguments"
)

// Ping is "ping".
type Ping struct{}

// Pong is "pong".
type Pong struct {
	// ReqID is the id of the ping answered.
	ReqID string `json:"req_id,omitempty"`
}

// Shutdown is "shutdown": the sender closes the session.
type Shutdown struct {
	// Reason says why.
	Reason string `json:"reason,omitempty"`
}

// InvokeEvent is "invoke/event": progress of a running request. It does
// not complete the request it names.
type InvokeEvent struct {
	// ReqID is the id of the request in progress.
	ReqID string `json:"req_id,omitempty"`
	// Event names the kind of progress.
	Event string `json:"event,omitempty"`
	// Data is the event's payload.
	Data any `json:"data,omitempty"`
}

// Generic is the body of a message in a capability namespace for which
// this package has no struct (for example "chain/run/req"). Its members
// are in Message.Members.
type Generic struct {
	// Type is the message type.
	Type string `json:"-"`
}

// MessageType implements Body.
func (HandshakeReq) MessageType() string { return TypeHandshakeReq }

// MessageType implements Body.
func (HandshakeResp) MessageType() string { return TypeHandshakeResp }

// MessageType implements Body.
func (Error) MessageType() string { return TypeError }

// MessageType implements Body.
func (Ping) MessageType() string { return TypePing }

// MessageType implements Body.
func (Pong) MessageType() string { return TypePong }

// MessageType implements Body.
func (Shutdown) MessageType() string { return TypeShutdown }

// MessageType implements Body.
func (InvokeEvent) MessageType() string { return TypeInvokeEvent }

// MessageType implements Body.
func (g Generic) MessageType() string { return g.Type }
