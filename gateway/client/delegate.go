package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/capgate/capgate/gateway/sep"
)

// The send methods Delegate may use, one per A2A generation plus the SEP's.
const (
	MethodMessageSend = "message/send"  // A2A v0.3 (the default)
	MethodSendMessage = "SendMessage"   // A2A v1.0
	MethodTasksSend   = "tasks/send"    // A2A v0.1
	MethodTaskSend    = "a2a/task/send" // the SEP's delegated send
)

// MaxDelegated bounds the capabilities one delegated send may carry.
const MaxDelegated = sep.MaxDelegated

// Delegation is a send to another agent that hands it capabilities (the SEP's
// a2a/task/send): params.capabilities lists the ids of
// capabilities the caller holds and params.attenuations narrows each one.
// The gateway mints, per id, a child bound to the receiving agent and puts
// the children in the message the agent receives.
type Delegation struct {
	// Method is the send method; empty means MethodMessageSend. Streaming
	// methods are not supported.
	Method string
	// Text is the message text, wrapped in the message shape of Method.
	Text string
	// Message, when not empty, is sent as params.message as it is, in
	// place of Text.
	Message json.RawMessage
	// Capabilities are the capabilities handed on; only their ids travel.
	Capabilities []Capability
	// Attenuations narrow delegated capabilities, keyed by capability id.
	// Every key must be the id of one of Capabilities.
	Attenuations map[string]Constraints
}

// wireDelegation is the params of a delegated send.
type wireDelegation struct {
	Message      json.RawMessage            `json:"message"`
	Capabilities []string                   `json:"capabilities"`
	Attenuations map[string]sep.Constraints `json:"attenuations,omitempty"`
}

// Delegate sends d to the client's agent and returns the agent's raw
// result (an A2A message or task). Use For to get a client for the
// receiving agent.
func (c *Client) Delegate(ctx context.Context, d Delegation) (json.RawMessage, error) {
	method := d.Method
	if method == "" {
		method = MethodMessageSend
	}
	params, err := delegationParams(method, d)
	if err != nil {
		return nil, err
	}
	return c.call(ctx, method, params)
}

func delegationParams(method string, d Delegation) (wireDelegation, error) {
	if !slices.Contains([]string{MethodMessageSend, MethodSendMessage, MethodTasksSend, MethodTaskSend}, method) {
		return wireDelegation{}, fmt.Errorf("%w: Delegate does not send %q", ErrInvalidArgument, method)
	}
	if len(d.Capabilities) == 0 || len(d.Capabilities) > MaxDelegated {
		return wireDelegation{}, fmt.Errorf("%w: Delegate needs 1 to %d capabilities", ErrInvalidArgument, MaxDelegated)
	}
	ids := make([]string, 0, len(d.Capabilities))
	for _, capb := range d.Capabilities {
		if capb.ID == "" || slices.Contains(ids, capb.ID) {
			return wireDelegation{}, fmt.Errorf("%w: delegated capability ids must be set and distinct", ErrInvalidArgument)
		}
		ids = append(ids, capb.ID)
	}
	var atts map[string]sep.Constraints
	for id, cons := range d.Attenuations {
		if !slices.Contains(ids, id) {
			return wireDelegation{}, fmt.Errorf("%w: attenuation for %q, which is not delegated", ErrInvalidArgument, id)
		}
		if atts == nil {
			atts = make(map[string]sep.Constraints, len(d.Attenuations))
		}
		atts[id] = cons.wire()
	}
	msg := d.Message
	if len(msg) == 0 {
		var err error
		if msg, err = textMessage(method, d.Text); err != nil {
			return wireDelegation{}, err
		}
	} else if !json.Valid(msg) {
		return wireDelegation{}, fmt.Errorf("%w: Message is not JSON", ErrInvalidArgument)
	}
	return wireDelegation{Message: msg, Capabilities: ids, Attenuations: atts}, nil
}

// textMessage builds a user message holding text in the shape of method's
// A2A generation.
func textMessage(method, text string) (json.RawMessage, error) {
	var msg any
	switch method {
	case MethodSendMessage:
		msg = map[string]any{"messageId": newMessageID(), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	case MethodTasksSend, MethodTaskSend:
		msg = map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}}
	default:
		msg = map[string]any{"kind": "message", "messageId": newMessageID(), "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}}
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("%w: message: %w", ErrInvalidArgument, err)
	}
	return raw, nil
}

// newMessageID returns a random message id: "msg-" and 26 base32 digits.
func newMessageID() string { return "msg-" + rand.Text() }
