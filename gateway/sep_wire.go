package gateway

import (
	"encoding/json"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
)

// requestParams are the params of a2a/capabilities/request (SEP).
type requestParams struct {
	Grants        []string       `json:"grants"`
	Purpose       string         `json:"purpose,omitempty"`
	ResourceQuery *resourceQuery `json:"resourceQuery,omitempty"`
	Operations    []string       `json:"operations,omitempty"`
	Expires       *time.Time     `json:"expires,omitempty"`
}

type resourceQuery struct {
	Collection string            `json:"collection,omitempty"`
	Filter     map[string]string `json:"filter,omitempty"`
}

// invokeParams are the params of a2a/skill/invoke (SEP).
type invokeParams struct {
	Skill           string                     `json:"skill"`
	Arguments       map[string]json.RawMessage `json:"arguments,omitempty"`
	CapabilityID    string                     `json:"capabilityId,omitempty"`
	CapabilityToken string                     `json:"capabilityToken,omitempty"`
}

// attenuateParams are the params of a2a/capabilities/attenuate (SEP).
type attenuateParams struct {
	CapabilityID    string      `json:"capabilityId"`
	CapabilityToken string      `json:"capabilityToken,omitempty"`
	Constraints     constraints `json:"constraints"`
}

type constraints struct {
	ResourceHandles []string   `json:"resourceHandles,omitempty"`
	Operations      []string   `json:"operations,omitempty"`
	Expires         *time.Time `json:"expires,omitempty"`
}

// revokeParams are the params of a2a/capabilities/revoke.
type revokeParams struct {
	CapabilityID    string `json:"capabilityId"`
	CapabilityToken string `json:"capabilityToken,omitempty"`
}

// capability is one issued capability in the SEP's issuance shape.
type capability struct {
	ID              string           `json:"id"`
	Grant           string           `json:"grant"`
	Token           string           `json:"token"`
	ResourceHandles []resourceHandle `json:"resourceHandles"`
	Operations      []string         `json:"operations"`
	Expires         time.Time        `json:"expires"`
	RevocationID    string           `json:"revocationId"`
	Principal       string           `json:"principal"`
	Holder          string           `json:"holder,omitempty"`
	ParentID        string           `json:"parentId,omitempty"`
	Depth           int              `json:"depth"`
}

type resourceHandle struct {
	Handle      string `json:"handle"`
	DisplayName string `json:"displayName,omitempty"`
}

type capabilitiesResult struct {
	Capabilities []capability `json:"capabilities"`
	// PolicyRevision is the policy revision that decided the issuance.
	PolicyRevision string `json:"policyRevision,omitempty"`
}

// wireCapability renders claims and their token in the issuance shape.
func wireCapability(token string, c *captoken.Claims, names map[string]string) capability {
	hs := make([]resourceHandle, 0, len(c.Handles))
	for _, h := range c.Handles {
		hs = append(hs, resourceHandle{Handle: h, DisplayName: names[h]})
	}
	return capability{
		ID: c.CapabilityID, Grant: c.Grant, Token: token, ResourceHandles: hs,
		Operations: c.Operations, Expires: c.Expiry.Time().UTC(), RevocationID: c.RevocationID,
		Principal: c.Principal, Holder: c.Holder, ParentID: c.ParentCapabilityID, Depth: c.Depth,
	}
}

// indexRecord is what the index keeps for an issued capability.
func indexRecord(token string, c *captoken.Claims, names map[string]string) capindex.Record {
	return capindex.Record{
		CapabilityID: c.CapabilityID, Token: token, Principal: c.Principal, Holder: c.Holder,
		Agent: c.Audience, Grant: c.Grant, ParentID: c.ParentCapabilityID, DisplayNames: names,
		IssuedAt: c.IssuedAt.Time(), Expires: c.Expiry.Time(),
	}
}
