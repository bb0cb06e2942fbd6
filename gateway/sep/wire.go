package sep

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// The extension's methods.
const (
	MethodRequest   = "a2a/capabilities/request"
	MethodAttenuate = "a2a/capabilities/attenuate"
	MethodRevoke    = "a2a/capabilities/revoke"
	MethodInvoke    = "a2a/skill/invoke"
	// MethodResolve is the resolution hook an agent may serve: the gateway
	// asks it which of its resources match a resource query.
	MethodResolve = "a2a/resources/resolve"
)

// MaxDelegated bounds the capabilities one delegated send may carry.
const MaxDelegated = 16

// MaxPurposeBytes bounds the purpose of a capability request, in bytes of
// UTF-8. The purpose is carried in the capability token, whose whole size
// is bounded, so a longer one is refused as invalid params.
const MaxPurposeBytes = 1024

// ResourceQuery is the SEP resourceQuery: a collection and exact-match
// attribute filters. It converts to policy.ResourceQuery, which decides
// and matches it; this package stays free of the policy engine so that
// agent code importing the client does not carry it.
type ResourceQuery struct {
	// Collection is the resource collection, e.g. "reports".
	Collection string `json:"collection,omitempty"`
	// Filter holds attribute = value conditions, e.g. quarter: 2025-Q1.
	Filter map[string]string `json:"filter,omitempty"`
}

// RequestParams are the params of a2a/capabilities/request.
type RequestParams struct {
	// Grants are the grant ids asked for, e.g. ["documents:read"].
	Grants []string `json:"grants"`
	// Purpose is recorded in the audit trail; policies may require it.
	Purpose string `json:"purpose,omitempty"`
	// ResourceQuery selects the resources; nil asks for everything the
	// policy allows.
	ResourceQuery *ResourceQuery `json:"resourceQuery,omitempty"`
	// Operations narrows the operations asked for; empty asks for all.
	Operations []string `json:"operations,omitempty"`
	// Expires asks for an earlier expiry than the policy's maximum.
	Expires *time.Time `json:"expires,omitempty"`
	// ApprovalID asks for the outcome of a request that waited for human
	// approval (the approvalId of its PendingResult). When it is set, the
	// other fields are ignored: the answer is the approved capabilities,
	// PendingResult again while nobody decided, or grant_denied.
	ApprovalID string `json:"approvalId,omitempty"`
}

// StatusPending is PendingResult.Status.
const StatusPending = "pending"

// PendingResult answers a2a/capabilities/request when the policy lets the
// request through only once a human approves it. It is a result, not an
// error: the request was accepted and waits. The caller asks again with
// params {"approvalId": ...} to learn the outcome.
type PendingResult struct {
	// Status is always "pending".
	Status string `json:"status"`
	// ApprovalID names the waiting request ("apr_...").
	ApprovalID string `json:"approvalId"`
	// Expires is when the request lapses unless approved (and, once
	// approved, redeemed).
	Expires time.Time `json:"expires"`
	// PolicyRevision is the policy revision that decided.
	PolicyRevision string `json:"policyRevision,omitempty"`
}

// InvokeParams are the params of a2a/skill/invoke.
type InvokeParams struct {
	// Skill is the skill invoked; it maps to one operation.
	Skill string `json:"skill"`
	// Arguments are the skill's arguments; resources are named by handle
	// in resourceHandle or resourceHandles.
	Arguments map[string]json.RawMessage `json:"arguments,omitempty"`
	// CapabilityID names the capability that authorises the call.
	CapabilityID string `json:"capabilityId,omitempty"`
	// CapabilityToken optionally presents the capability's token.
	CapabilityToken string `json:"capabilityToken,omitempty"`
	// Metadata may carry capabilityId and capabilityToken instead, under
	// the extension's URI, where a stock A2A client puts an extension's
	// data.
	Metadata map[string]json.RawMessage `json:"metadata,omitempty"`
}

// AttenuateParams are the params of a2a/capabilities/attenuate.
type AttenuateParams struct {
	CapabilityID    string      `json:"capabilityId"`
	CapabilityToken string      `json:"capabilityToken,omitempty"`
	Constraints     Constraints `json:"constraints"`
}

// Constraints narrow a capability in an attenuation and in the
// attenuations of a delegated send. Empty fields keep the parent's value;
// nothing can widen it.
type Constraints struct {
	// ResourceHandles keeps only these handles.
	ResourceHandles []string `json:"resourceHandles,omitempty"`
	// Operations keeps only these operations.
	Operations []string `json:"operations,omitempty"`
	// Expires moves the expiry earlier; nil keeps the parent's.
	Expires *time.Time `json:"expires,omitempty"`
}

// RevokeParams are the params of a2a/capabilities/revoke.
type RevokeParams struct {
	CapabilityID    string `json:"capabilityId"`
	CapabilityToken string `json:"capabilityToken,omitempty"`
}

// CapabilitiesResult is the result of request and attenuate.
type CapabilitiesResult struct {
	Capabilities []Capability `json:"capabilities"`
	// PolicyRevision is the policy revision that decided an issuance.
	PolicyRevision string `json:"policyRevision,omitempty"`
}

// RevokeResult is the result of a2a/capabilities/revoke.
type RevokeResult struct {
	Revoked      bool   `json:"revoked"`
	CapabilityID string `json:"capabilityId"`
	RevocationID string `json:"revocationId,omitempty"`
}

// Capability is one issued capability in the SEP's issuance shape, as the
// gateway answers it from request and attenuate, and as a delegatee
// receives it in the capabilities of a delegated send.
//
// Token is a bearer credential for the holder. String, GoString and
// LogValue never show it, so logging a Capability with fmt or slog does not
// leak it; json.Marshal does include it, since that is how a capability is
// handed on.
type Capability struct {
	// ID is the capability id, "cap_…"; invocations name it.
	ID string `json:"id"`
	// Grant is the grant it was issued under, e.g. "documents:read".
	Grant string `json:"grant"`
	// Token is the signed capability token (a compact JWS).
	Token string `json:"token,omitempty"`
	// ResourceHandles are the opaque handles of the resources it designates.
	ResourceHandles []ResourceHandle `json:"resourceHandles"`
	// Operations are the operations it permits, e.g. ["retrieve"].
	Operations []string `json:"operations"`
	// Expires is when it stops being accepted.
	Expires time.Time `json:"expires"`
	// RevocationID is its own revocation id.
	RevocationID string `json:"revocationId,omitempty"`
	// Principal is the user principal it acts for.
	Principal string `json:"principal,omitempty"`
	// Holder is the only caller that may present it.
	Holder string `json:"holder,omitempty"`
	// ParentID is the capability it was attenuated from; empty for a root.
	ParentID string `json:"parentId,omitempty"`
	// Depth is its delegation depth: 0 for a root capability.
	Depth int `json:"depth"`
}

// ResourceHandle is an opaque handle to one resource, with the display name
// the gateway shows its holder. Real resource ids are never revealed.
type ResourceHandle struct {
	// Handle is the opaque handle, sent as arguments.resourceHandle.
	Handle string `json:"handle"`
	// DisplayName is the resource's title.
	DisplayName string `json:"displayName,omitempty"`
}

// Handle returns the handle whose display name is name.
func (c Capability) Handle(name string) (string, bool) {
	for _, h := range c.ResourceHandles {
		if h.DisplayName == name {
			return h.Handle, true
		}
	}
	return "", false
}

// Handles returns every resource handle of c, in order.
func (c Capability) Handles() []string {
	out := make([]string, 0, len(c.ResourceHandles))
	for _, h := range c.ResourceHandles {
		out = append(out, h.Handle)
	}
	return out
}

// String describes c without its token: id, grant, operations, number of
// handles and expiry.
func (c Capability) String() string {
	return fmt.Sprintf("%s %s [%s] on %d resource(s) until %s", c.ID, c.Grant,
		strings.Join(c.Operations, " "), len(c.ResourceHandles), c.Expires.UTC().Format(time.RFC3339))
}

// GoString is String, so that %#v does not print the token either.
func (c Capability) GoString() string { return "sep.Capability{" + c.String() + "}" }

// LogValue implements slog.LogValuer: every field but the token.
func (c Capability) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("id", c.ID), slog.String("grant", c.Grant),
		slog.Any("operations", c.Operations), slog.Int("handles", len(c.ResourceHandles)),
		slog.Time("expires", c.Expires), slog.String("holder", c.Holder),
		slog.String("parent_id", c.ParentID), slog.Int("depth", c.Depth),
	)
}
