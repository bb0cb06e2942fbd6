package config

import (
	"fmt"
	"time"
)

// Push relay modes of an agent (Agent.PushRelay).
const (
	// PushRelayScoped relays the push configs set on calls scoped to a
	// capability (every send and follow-up of a gated agent), and
	// forwards the others as they are. The default.
	PushRelayScoped = "scoped"
	// PushRelayAll relays every push config set on the agent's tasks.
	PushRelayAll = "all"
	// PushRelayOff relays none: a push config on a call scoped to a
	// capability is refused, never forwarded.
	PushRelayOff = "off"
)

// PushRelay configures the push-notification relay. Without it no push
// config is relayed, and one set on a call scoped to a capability is
// refused.
type PushRelay struct {
	// URL is the base URL agents reach the gateway at; an agent is handed
	// URL/a2a/{agent}/push/{id}. Default: public_url.
	URL string `yaml:"url,omitempty"`
	// AllowHTTP accepts a caller's http push URL as well as https.
	AllowHTTP bool `yaml:"allow_http,omitempty"`
	// AllowPrivateTargets accepts push URLs on loopback, private,
	// link-local and other non-public addresses (a test's receiver).
	AllowPrivateTargets bool `yaml:"allow_private_targets,omitempty"`
	// MaxAttempts bounds the deliveries of one push (1 to 10); default 5.
	MaxAttempts int `yaml:"max_attempts,omitempty"`
	// Backoff is the first retry's delay, doubled each retry; default
	// 500ms.
	Backoff Duration `yaml:"backoff,omitempty"`
	// QueueSize bounds the pushes waiting for delivery; default 1000. A
	// push that finds the queue full is dropped and counted.
	QueueSize int `yaml:"queue_size,omitempty"`
	// MaxConfigs bounds the relayed configs one replica keeps in memory
	// (without redis); default 100000.
	MaxConfigs int `yaml:"max_configs,omitempty"`
	// MaxConfigsPerPrincipal bounds the relayed configs one principal
	// holds at once, in memory or on redis (1 to MaxConfigs); default
	// 100. A set beyond it is refused until one of the principal's
	// configs is deleted or expires.
	MaxConfigsPerPrincipal int `yaml:"max_configs_per_principal,omitempty"`
}

// Push relay defaults.
const (
	defaultPushAttempts = 5
	defaultPushBackoff  = 500 * time.Millisecond
	defaultPushQueue    = 1000
	defaultPushConfigs  = 100_000
)

// DefaultPushConfigsPerPrincipal is PushRelay.MaxConfigsPerPrincipal
// when the config names none.
const DefaultPushConfigsPerPrincipal = 100

func (p *PushRelay) applyDefaults(publicURL string) {
	if p == nil {
		return
	}
	if p.URL == "" {
		p.URL = publicURL
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = defaultPushAttempts
	}
	if p.Backoff == 0 {
		p.Backoff = Duration(defaultPushBackoff)
	}
	if p.QueueSize == 0 {
		p.QueueSize = defaultPushQueue
	}
	if p.MaxConfigs == 0 {
		p.MaxConfigs = defaultPushConfigs
	}
	if p.MaxConfigsPerPrincipal == 0 {
		p.MaxConfigsPerPrincipal = min(DefaultPushConfigsPerPrincipal, max(p.MaxConfigs, 1))
	}
}

func (c *Config) validatePush(add addFunc) {
	for i, a := range c.Agents {
		switch a.PushRelay {
		case "", PushRelayScoped, PushRelayOff:
		case PushRelayAll:
			if c.PushRelay == nil {
				add(fmt.Sprintf("agents[%d].push_relay", i), "all needs the push_relay section (where agents reach the relay)")
			}
		default:
			add(fmt.Sprintf("agents[%d].push_relay", i), "%q must be scoped, all or off", a.PushRelay)
		}
	}
	p := c.PushRelay
	if p == nil {
		return
	}
	if err := checkURL(p.URL); err != nil {
		add("push_relay.url", "%v", err)
	}
	if p.MaxAttempts < 1 || p.MaxAttempts > 10 {
		add("push_relay.max_attempts", "must be 1 to 10")
	}
	if p.Backoff.D() < 0 || p.Backoff.D() > 30*time.Second {
		add("push_relay.backoff", "must be between 0s and 30s")
	}
	if p.QueueSize < 1 || p.QueueSize > 100_000 {
		add("push_relay.queue_size", "must be 1 to 100000")
	}
	if p.MaxConfigs < 1 {
		add("push_relay.max_configs", "must be positive")
	}
	if p.MaxConfigsPerPrincipal < 1 || p.MaxConfigsPerPrincipal > max(p.MaxConfigs, 1) {
		add("push_relay.max_configs_per_principal", "must be 1 to max_configs (%d)", p.MaxConfigs)
	}
}
