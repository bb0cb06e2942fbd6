package mcp

// The protocol revisions the front speaks: the newest the official SDKs
// implement, and the one before it. Older revisions the SDK still accepts
// pass too; the front reads nothing that differs between them.
const (
	Version20260728 = "2026-07-28"
	Version20251125 = "2025-11-25"
)

// The methods the front decides on. Every other method is refused.
const (
	MethodInitialize = "initialize"
	MethodDiscover   = "server/discover"
	MethodPing       = "ping"
	MethodToolsList  = "tools/list"
	MethodToolsCall  = "tools/call"
	// MethodResourcesList and MethodResourcesRead list and read the
	// server's resources.
	MethodResourcesList = "resources/list"
	MethodResourcesRead = "resources/read"
	// MethodPromptsList and MethodPromptsGet list and get the server's
	// prompts.
	MethodPromptsList  = "prompts/list"
	MethodPromptsGet   = "prompts/get"
	MethodCapabilities = "a2a/capabilities/request"

	NotificationInitialized      = "notifications/initialized"
	NotificationCancelled        = "notifications/cancelled"
	NotificationProgress         = "notifications/progress"
	NotificationRootsListChanged = "notifications/roots/list_changed"
)

// The Streamable HTTP headers the front reads or sets.
const (
	// HeaderSessionID carries the session the server assigned at
	// initialize (revisions before 2026-07-28).
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion carries the negotiated revision.
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	// HeaderMethod and HeaderName mirror the body's method and, for
	// tools/call, the tool's name (2026-07-28); a server refuses a call
	// whose headers disagree with its body.
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
	// HeaderParamPrefix starts the headers that mirror tool arguments a
	// tool's schema marks with x-mcp-header (2026-07-28).
	HeaderParamPrefix = "Mcp-Param-"
)

// MetaCapability is the key of params._meta under which a tools/call
// presents its capability, as {"capabilityId": …} or
// {"capabilityToken": …}. It follows _meta's naming rules: a reverse-DNS
// prefix the gateway owns, a slash, a name.
const MetaCapability = "dev.capgate/capability"

// PresentedCapability is the value of params._meta[MetaCapability].
type PresentedCapability struct {
	CapabilityID    string `json:"capabilityId,omitempty"`
	CapabilityToken string `json:"capabilityToken,omitempty"`
}
