package lab

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/capgate/capgate/gateway/a2e"
)

// ReasonNoPlugin is the metadata.reason of a requested capability that no
// loaded plugin serves.
const ReasonNoPlugin = "no plugin loaded"

// CapabilityRegistry holds the loaded plugins and applies the A2E
// negotiation and dispatch rules. It is safe for concurrent use.
type CapabilityRegistry struct {
	mu      sync.RWMutex
	plugins []Plugin // registration order
}

// NewCapabilityRegistry returns a registry holding plugins, registered in
// order.
func NewCapabilityRegistry(plugins ...Plugin) (*CapabilityRegistry, error) {
	r := &CapabilityRegistry{}
	for _, p := range plugins {
		if err := r.Register(p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register loads p. Its name must be new and its type an A2E capability
// name (ErrInvalidPlugin, ErrDuplicatePlugin).
func (r *CapabilityRegistry) Register(p Plugin) error {
	if p == nil {
		return fmt.Errorf("%w: nil plugin", ErrInvalidPlugin)
	}
	info := p.Info()
	if info.Name == "" || !isCapability(info.Type) {
		return fmt.Errorf("%w: name %q, type %q", ErrInvalidPlugin, info.Name, info.Type)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.plugins {
		if q.Info().Name == info.Name {
			return fmt.Errorf("%w: %q", ErrDuplicatePlugin, info.Name)
		}
	}
	r.plugins = append(r.plugins, p)
	return nil
}

// ordered returns the plugins for which keep is true: exclusive ones
// first, then by priority, higher first, ties in registration order.
func (r *CapabilityRegistry) ordered(keep func(Plugin) bool) []Plugin {
	r.mu.RLock()
	var out []Plugin
	for _, p := range r.plugins {
		if keep(p) {
			out = append(out, p)
		}
	}
	r.mu.RUnlock()
	slices.SortStableFunc(out, func(a, b Plugin) int {
		ia, ib := a.Info(), b.Info()
		if ia.Exclusive != ib.Exclusive {
			if ia.Exclusive {
				return -1
			}
			return 1
		}
		return cmp.Compare(ib.Priority, ia.Priority)
	})
	return out
}

// Plugins returns the plugins serving capability in dispatch preference
// order.
func (r *CapabilityRegistry) Plugins(capability string) []Plugin {
	return r.ordered(func(p Plugin) bool { return p.Info().Type == capability })
}

// Dispatch returns, in the order to try them, the plugins that handle
// msgType: when one of them is exclusive, only the first exclusive one
// (by priority); otherwise all of them, higher priority first.
func (r *CapabilityRegistry) Dispatch(msgType string) []Plugin {
	capability, _ := a2e.CapabilityFor(msgType)
	if capability == "" {
		return nil
	}
	out := r.ordered(func(p Plugin) bool { return p.Info().Type == capability && p.Serves(msgType) })
	if len(out) > 0 && out[0].Info().Exclusive {
		return out[:1]
	}
	return out
}

// Negotiate answers agent_caps: one Capability per distinct requested
// name, in request order. A capability with at least one plugin is
// enabled, with the metadata of its preferred plugin and the names of all
// its plugins under "plugins"; any other is disabled with metadata.reason
// ReasonNoPlugin.
func (r *CapabilityRegistry) Negotiate(agentCaps []string) []a2e.Capability {
	out := make([]a2e.Capability, 0, len(agentCaps))
	seen := map[string]bool{}
	for _, c := range agentCaps {
		if seen[c] {
			continue
		}
		seen[c] = true
		ps := r.Plugins(c)
		if len(ps) == 0 {
			out = append(out, a2e.Capability{Capability: c, Metadata: map[string]any{"reason": ReasonNoPlugin}})
			continue
		}
		md := ps[0].Info().Metadata()
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i] = p.Info().Name
		}
		md["plugins"] = names
		out = append(out, a2e.Capability{Capability: c, Enabled: true, Metadata: md})
	}
	return out
}

// isCapability reports whether name is an A2E capability name.
func isCapability(name string) bool {
	switch name {
	case a2e.CapSkill, a2e.CapTools, a2e.CapToolkits, a2e.CapEnv, a2e.CapProc, a2e.CapMemory,
		a2e.CapLearning, a2e.CapChains, a2e.CapMCP, a2e.CapMultiAgent, a2e.CapPlanning:
		return true
	}
	return false
}
