package summarizer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

// ResourceHandle is an opaque handle to one resource, as issued (SEP).
type ResourceHandle struct {
	Handle      string `json:"handle"`                // opaque handle, e.g. "rh_001"
	DisplayName string `json:"displayName,omitempty"` // title shown to the holder
}

// Capability is one delegated capability in the SEP issuance shape, as the
// gateway places it in params.capabilities of a delegated send.
type Capability struct {
	ID              string           `json:"id"`                        // capability id, "cap_…"
	Grant           string           `json:"grant,omitempty"`           // grant id, e.g. "documents:read"
	Token           string           `json:"token,omitempty"`           // opaque token, sent back as capabilityToken
	ResourceHandles []ResourceHandle `json:"resourceHandles,omitempty"` // the documents it designates
	Operations      []string         `json:"operations,omitempty"`      // operations it permits
	Expires         string           `json:"expires,omitempty"`         // RFC 3339 expiry, informative
	RevocationID    string           `json:"revocationId,omitempty"`    // revocation id, informative
	Principal       string           `json:"principal,omitempty"`       // user principal it acts for
}

// MaxCapabilities bounds how many delegated capabilities one message may carry.
const MaxCapabilities = 32

// ParseDelegated reads the delegated capabilities from the raw params of
// a send. The gateway puts them where the caller put its own: in
// params.capabilities, or under the extension's URI in params.metadata or
// params.message.metadata (where a stock A2A client carries an
// extension's data). It returns nil when none is present or the list is
// null. Entries may be capability objects or, as in the SEP's
// a2a/task/send before the gateway mints children, bare capability id
// strings (which carry no handles and so lead to no invocation). Anything
// else, or two places that both carry capabilities, is
// ErrMalformedCapabilities.
func ParseDelegated(params json.RawMessage) ([]Capability, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		return nil, nil
	}
	var p struct {
		Capabilities json.RawMessage            `json:"capabilities"`
		Metadata     map[string]json.RawMessage `json:"metadata"`
		Message      struct {
			Metadata map[string]json.RawMessage `json:"metadata"`
		} `json:"message"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, nil // not an object: a2asrv reports it in its own words
	}
	var found json.RawMessage
	for _, raw := range []json.RawMessage{p.Capabilities, fromEntry(p.Metadata), fromEntry(p.Message.Metadata)} {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%w: capabilities in more than one place", ErrMalformedCapabilities)
		}
		found = raw
	}
	if found == nil {
		return nil, nil
	}
	return parseList(found)
}

// fromEntry returns the capabilities member of the extension's entry in
// metadata, nil when there is none.
func fromEntry(metadata map[string]json.RawMessage) json.RawMessage {
	var entry struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(metadata[documents.CapabilityExtensionURI], &entry) != nil {
		return nil
	}
	return entry.Capabilities
}

func parseList(list json.RawMessage) ([]Capability, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(list, &entries); err != nil {
		return nil, fmt.Errorf("%w: want a list: %w", ErrMalformedCapabilities, err)
	}
	if len(entries) > MaxCapabilities {
		return nil, fmt.Errorf("%w: %d capabilities, at most %d", ErrMalformedCapabilities, len(entries), MaxCapabilities)
	}
	caps := make([]Capability, 0, len(entries))
	for i, e := range entries {
		c, err := parseEntry(e)
		if err != nil {
			return nil, fmt.Errorf("%w: entry %d: %w", ErrMalformedCapabilities, i, err)
		}
		caps = append(caps, c)
	}
	return caps, nil
}

func parseEntry(e json.RawMessage) (Capability, error) {
	var id string
	if err := json.Unmarshal(e, &id); err == nil {
		if id == "" {
			return Capability{}, fmt.Errorf("empty capability id")
		}
		return Capability{ID: id}, nil
	}
	var c Capability
	if err := json.Unmarshal(e, &c); err != nil {
		return Capability{}, err
	}
	if c.ID == "" {
		return Capability{}, fmt.Errorf("capability without an id")
	}
	for _, h := range c.ResourceHandles {
		if h.Handle == "" {
			return Capability{}, fmt.Errorf("capability %s has an empty resource handle", c.ID)
		}
	}
	return c, nil
}

// delegationKey carries the parsed capabilities from the front to the executor.
type delegationKey struct{}

func withDelegation(ctx context.Context, caps []Capability) context.Context {
	return context.WithValue(ctx, delegationKey{}, caps)
}

func delegation(ctx context.Context) []Capability {
	caps, _ := ctx.Value(delegationKey{}).([]Capability)
	return caps
}
