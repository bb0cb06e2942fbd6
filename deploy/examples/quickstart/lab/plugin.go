package lab

import (
	"context"

	"github.com/capgate/capgate/gateway/a2e"
)

// PluginInfo is what a plugin declares about itself, and what the host
// reports in accepted_caps metadata.
type PluginInfo struct {
	// Name identifies the plugin, e.g. "basic-tools".
	Name string
	// Type is the A2E capability the plugin serves, e.g. "tools".
	Type string
	// Priority orders plugins of one capability: higher first.
	Priority int
	// Exclusive gives the plugin sole handling of the message types it
	// serves.
	Exclusive bool
}

// Metadata returns the accepted_caps metadata of the specification:
// {name, type, priority, exclusive}.
func (i PluginInfo) Metadata() map[string]any {
	return map[string]any{"name": i.Name, "type": i.Type, "priority": i.Priority, "exclusive": i.Exclusive}
}

// Plugin serves the messages of one capability.
type Plugin interface {
	// Info describes the plugin. It must not change.
	Info() PluginInfo
	// Serves reports whether the plugin handles messages of type msgType.
	Serves(msgType string) bool
	// Handle answers one request on session s. handled false passes the
	// message to the next plugin in dispatch order (for example a tool
	// plugin that does not have the named tool). ctx ends when the session
	// or the host closes.
	Handle(ctx context.Context, s *Session, m a2e.Message) (resp a2e.Body, handled bool)
}
