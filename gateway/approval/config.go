package approval

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrConfig means the approvals section of the config is invalid.
var ErrConfig = errors.New("approval: invalid config")

// ErrWebhookConfig means the webhook configuration is unusable.
var ErrWebhookConfig = errors.New("approval: invalid webhook configuration")

// Webhook formats (WebhookConfig.Format).
const (
	// FormatGeneric is a Notification as JSON, signed (HeaderSignature).
	FormatGeneric = "generic"
	// FormatSlack is a Slack incoming-webhook message (text and Block Kit
	// blocks), which Slack-compatible chat tools accept as is.
	FormatSlack = "slack"
	// FormatTeams is a message carrying one Adaptive Card, as Microsoft
	// Teams incoming webhooks and Workflows' "when a Teams webhook request
	// is received" accept it.
	FormatTeams = "teams"
)

// Formats are the accepted values of WebhookConfig.Format.
var Formats = []string{FormatGeneric, FormatSlack, FormatTeams}

// Config configures approvals.
type Config struct {
	// Webhook, when set, is told of every new request.
	Webhook *WebhookConfig `yaml:"webhook,omitempty" json:"webhook,omitempty"`
	// MaxPendingPerPrincipal bounds the requests one principal may have
	// waiting at once; 0 means DefaultMaxPending.
	MaxPendingPerPrincipal int `yaml:"max_pending_per_principal,omitempty" json:"max_pending_per_principal,omitempty"`
}

// WebhookConfig says where to notify approvers.
type WebhookConfig struct {
	// URL receives a POST per new request (https, or http on loopback).
	// A chat tool's webhook URL is itself a secret: it is never logged.
	URL string `yaml:"url" json:"url"`
	// Format is what the POST carries: generic (the default), slack or
	// teams; anything else is refused.
	Format string `yaml:"format,omitempty" json:"format,omitempty"`
	// SecretEnv names the environment variable holding the HMAC secret
	// (at least 16 bytes). Required by the generic format; with slack or
	// teams it is optional and, when set, signs those deliveries too.
	SecretEnv string `yaml:"secret_env,omitempty" json:"secret_env,omitempty"`
	// MaxAttempts bounds the deliveries of one notification; 0 means 5.
	MaxAttempts int `yaml:"max_attempts,omitempty" json:"max_attempts,omitempty"`
}

// ConfigError is one problem of the approvals config: Field is its path
// under approvals (max_pending_per_principal, webhook.format, ...). It
// wraps ErrConfig, and ErrWebhookConfig for a webhook field.
type ConfigError struct {
	Field, Msg string
}

// Error names the field and the problem.
func (e *ConfigError) Error() string { return "approval: approvals." + e.Field + ": " + e.Msg }

// Unwrap returns ErrConfig, and ErrWebhookConfig for a webhook field.
func (e *ConfigError) Unwrap() []error {
	if strings.HasPrefix(e.Field, "webhook.") {
		return []error{ErrConfig, ErrWebhookConfig}
	}
	return []error{ErrConfig}
}

// Validate reports every problem of the approvals config, each a
// *ConfigError, joined. A nil config is valid. The webhook's secret is
// read, and checked, when the gateway starts (NewWebhook).
func (c *Config) Validate() error {
	if c == nil {
		return nil
	}
	var errs []error
	if c.MaxPendingPerPrincipal < 0 || c.MaxPendingPerPrincipal > MaxPendingLimit {
		errs = append(errs, &ConfigError{Field: "max_pending_per_principal",
			Msg: fmt.Sprintf("must be 0 (the default, %d) to %d", DefaultMaxPending, MaxPendingLimit)})
	}
	if c.Webhook != nil {
		errs = append(errs, c.Webhook.check()...)
	}
	return errors.Join(errs...)
}

// check reports the problems of cfg that need no environment.
func (cfg *WebhookConfig) check() []error {
	var errs []error
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname()))) {
		// The URL itself is not echoed: a chat tool's URL is its secret.
		errs = append(errs, &ConfigError{Field: "webhook.url", Msg: "must be an https URL (or http on loopback)"})
	}
	if cfg.Format != "" && cfg.format() == "" {
		errs = append(errs, &ConfigError{Field: "webhook.format",
			Msg: fmt.Sprintf("%q: must be one of %s (empty means generic)", cfg.Format, strings.Join(Formats, ", "))})
	}
	if cfg.format() == FormatGeneric && cfg.SecretEnv == "" {
		errs = append(errs, &ConfigError{Field: "webhook.secret_env", Msg: "is required by the generic format (its deliveries are signed)"})
	}
	if cfg.MaxAttempts < 0 || cfg.MaxAttempts > maxAttempts {
		errs = append(errs, &ConfigError{Field: "webhook.max_attempts", Msg: fmt.Sprintf("%d: must be 0 to %d", cfg.MaxAttempts, maxAttempts)})
	}
	return errs
}

// format returns the configured format, generic when empty, or "" when
// it is none of Formats.
func (cfg *WebhookConfig) format() string {
	switch cfg.Format {
	case "", FormatGeneric:
		return FormatGeneric
	case FormatSlack, FormatTeams:
		return cfg.Format
	}
	return ""
}
