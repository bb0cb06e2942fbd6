package ratelimit

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidConfig is matched by every error of Config.Validate.
var ErrInvalidConfig = errors.New("ratelimit: invalid config")

// Rate is a token bucket: Events per Period on average, and at most Burst
// at once. Events 0 means no limit.
type Rate struct {
	Events int           `yaml:"events"`
	Period time.Duration `yaml:"period"`
	Burst  int           `yaml:"burst"`
}

// Config is the gateway config's rate_limits section. Zero fields take
// the defaults of DefaultConfig.
type Config struct {
	// Disabled turns every limit off.
	Disabled bool `yaml:"disabled,omitempty"`
	// Issue bounds a2a/capabilities/request, per principal.
	Issue Rate `yaml:"issue"`
	// Attenuate bounds a2a/capabilities/attenuate and the children of a
	// delegated send (one event per child), per principal.
	Attenuate Rate `yaml:"attenuate"`
	// Invoke bounds a2a/skill/invoke, per principal.
	Invoke Rate `yaml:"invoke"`
	// MaxLiveCapabilities caps the unexpired capabilities minted at one
	// principal's request (issued and attenuated). Negative means no cap.
	MaxLiveCapabilities int `yaml:"max_live_capabilities"`
	// PerAgent keeps every budget per principal and agent instead of per
	// principal, so a principal's use of one agent does not spend its
	// budget on another.
	PerAgent bool `yaml:"per_agent,omitempty"`
	// MaxKeys bounds the in-memory limiter's state (principals, or
	// principal and agent pairs). Idle keys are dropped first; when every
	// key is busy a new one is refused.
	MaxKeys int `yaml:"max_keys"`
}

// DefaultConfig returns the defaults: generous enough for interactive
// use and automation, tight enough that one principal cannot issue,
// attenuate or invoke as fast as the gateway allows.
func DefaultConfig() Config {
	return Config{
		Issue:               Rate{Events: 600, Period: time.Minute, Burst: 100},
		Attenuate:           Rate{Events: 600, Period: time.Minute, Burst: 100},
		Invoke:              Rate{Events: 6000, Period: time.Minute, Burst: 200},
		MaxLiveCapabilities: 10000,
		MaxKeys:             100000,
	}
}

// WithDefaults fills every zero field from DefaultConfig.
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	fill := func(r *Rate, def Rate) {
		if *r == (Rate{}) {
			*r = def
		}
		if r.Period == 0 {
			r.Period = def.Period
		}
		if r.Burst == 0 {
			r.Burst = max(1, r.Events*def.Burst/max(1, def.Events))
		}
	}
	fill(&c.Issue, d.Issue)
	fill(&c.Attenuate, d.Attenuate)
	fill(&c.Invoke, d.Invoke)
	if c.MaxLiveCapabilities == 0 {
		c.MaxLiveCapabilities = d.MaxLiveCapabilities
	}
	if c.MaxKeys == 0 {
		c.MaxKeys = d.MaxKeys
	}
	return c
}

// ConfigError is one problem of a Config, at its yaml key under
// rate_limits.
type ConfigError struct {
	Field, Msg string
}

// Error names the key and the problem.
func (e *ConfigError) Error() string { return ErrInvalidConfig.Error() + ": " + e.Field + ": " + e.Msg }

// Is matches ErrInvalidConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

// Validate reports every problem of a defaulted Config, joined.
func (c Config) Validate() error {
	var errs []error
	for _, k := range []struct {
		name string
		r    Rate
	}{{"issue", c.Issue}, {"attenuate", c.Attenuate}, {"invoke", c.Invoke}} {
		name, r := k.name, k.r
		switch {
		case r.Events < 0:
			errs = append(errs, &ConfigError{name + ".events", "must not be negative"})
		case r.Events > 0 && r.Period < time.Second:
			errs = append(errs, &ConfigError{name + ".period", fmt.Sprintf("%s is shorter than 1s", r.Period)})
		case r.Events > 0 && r.Burst < 1:
			errs = append(errs, &ConfigError{name + ".burst", "must be at least 1"})
		}
	}
	if c.MaxKeys < 1 {
		errs = append(errs, &ConfigError{"max_keys", "must be at least 1"})
	}
	return errors.Join(errs...)
}
