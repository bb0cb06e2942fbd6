package client

import (
	"time"

	"github.com/capgate/capgate/gateway/sep"
)

// Capability is one issued capability in the SEP issuance shape, exactly as
// the gateway answers it from a2a/capabilities/request and
// a2a/capabilities/attenuate, and as a delegatee receives it in the
// capabilities of a delegated send. Its String, GoString and LogValue
// never show the token.
type Capability = sep.Capability

// ResourceHandle is an opaque handle to one resource, with the display name
// the gateway shows its holder. Real resource ids are never revealed.
type ResourceHandle = sep.ResourceHandle

// RequestParams are the params of a2a/capabilities/request.
type RequestParams struct {
	// Grants are the grant ids asked for, e.g. ["documents:read"]. Required.
	Grants []string
	// Purpose is recorded in the audit trail; policies may require it.
	Purpose string
	// ResourceQuery selects the resources, resolved against the caller's
	// principal; nil asks for everything the policy allows.
	ResourceQuery *ResourceQuery
	// Operations narrows the operations asked for; empty asks for all the
	// grant permits.
	Operations []string
	// Expires asks for an earlier expiry than the policy's maximum; the
	// zero time leaves it to the policy.
	Expires time.Time
}

// ResourceQuery is the SEP resourceQuery: a collection and exact-match
// attribute filters.
type ResourceQuery = sep.ResourceQuery

// Constraints narrow a capability in a2a/capabilities/attenuate and in the
// attenuations of a delegated send. Empty fields keep the parent's value;
// nothing can widen it.
type Constraints struct {
	// ResourceHandles keeps only these handles.
	ResourceHandles []string
	// Operations keeps only these operations.
	Operations []string
	// Expires moves the expiry earlier; the zero time keeps the parent's.
	Expires time.Time
}

// wireInvoke is the params of a2a/skill/invoke as the client sends them:
// sep.InvokeParams with arguments not yet encoded.
type wireInvoke struct {
	Skill           string         `json:"skill"`
	Arguments       map[string]any `json:"arguments"`
	CapabilityID    string         `json:"capabilityId"`
	CapabilityToken string         `json:"capabilityToken,omitempty"`
}

func (c Constraints) wire() sep.Constraints {
	return sep.Constraints{ResourceHandles: c.ResourceHandles, Operations: c.Operations, Expires: timePtr(c.Expires)}
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
