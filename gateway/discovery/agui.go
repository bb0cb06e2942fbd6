package discovery

// The AG-UI AgentCapabilities snapshot, field for field as the AG-UI
// "Capabilities" concept document defines it. Every member is optional:
// pointers and omitempty keep an unknown member absent, since in AG-UI
// absent means unknown (not false).

// AgentCapabilities is an AG-UI capability snapshot.
type AgentCapabilities struct {
	// Identity is the agent's identity and metadata.
	Identity *IdentityCapabilities `json:"identity,omitempty"`
	// Transport lists the supported transport mechanisms.
	Transport *TransportCapabilities `json:"transport,omitempty"`
	// Tools lists the tools (here: skills) the agent provides.
	Tools *ToolsCapabilities `json:"tools,omitempty"`
	// Output describes output format support.
	Output *OutputCapabilities `json:"output,omitempty"`
	// State describes state and memory management.
	State *StateCapabilities `json:"state,omitempty"`
	// MultiAgent describes multi-agent coordination.
	MultiAgent *MultiAgentCapabilities `json:"multiAgent,omitempty"`
	// Reasoning describes reasoning and thinking support.
	Reasoning *ReasoningCapabilities `json:"reasoning,omitempty"`
	// Multimodal describes multimodal input and output.
	Multimodal *MultimodalCapabilities `json:"multimodal,omitempty"`
	// Execution describes execution control and limits.
	Execution *ExecutionCapabilities `json:"execution,omitempty"`
	// HumanInTheLoop describes human-in-the-loop support.
	HumanInTheLoop *HumanInTheLoopCapabilities `json:"humanInTheLoop,omitempty"`
	// Custom holds integration-specific capabilities (see the Custom*
	// keys).
	Custom map[string]any `json:"custom,omitempty"`
}

// IdentityCapabilities is AG-UI IdentityCapabilities.
type IdentityCapabilities struct {
	Name             string         `json:"name,omitempty"`             // human-readable name
	Type             string         `json:"type,omitempty"`             // framework or platform powering the agent
	Description      string         `json:"description,omitempty"`      // what the agent does
	Version          string         `json:"version,omitempty"`          // the agent's version
	Provider         string         `json:"provider,omitempty"`         // organization that maintains the agent
	DocumentationURL string         `json:"documentationUrl,omitempty"` // documentation or homepage URL
	Metadata         map[string]any `json:"metadata,omitempty"`         // integration-specific identity info
}

// TransportCapabilities is AG-UI TransportCapabilities.
type TransportCapabilities struct {
	Streaming         *bool `json:"streaming,omitempty"`         // responses stream over SSE
	Websocket         *bool `json:"websocket,omitempty"`         // persistent WebSocket connections
	HTTPBinary        *bool `json:"httpBinary,omitempty"`        // AG-UI binary protocol
	PushNotifications *bool `json:"pushNotifications,omitempty"` // async updates via webhooks
	Resumable         *bool `json:"resumable,omitempty"`         // interrupted streams resume
}

// ToolsCapabilities is AG-UI ToolsCapabilities.
type ToolsCapabilities struct {
	Supported      *bool  `json:"supported,omitempty"`      // tool calls are possible at all
	Items          []Tool `json:"items,omitempty"`          // the tools the agent provides
	ParallelCalls  *bool  `json:"parallelCalls,omitempty"`  // concurrent tool calls in one step
	ClientProvided *bool  `json:"clientProvided,omitempty"` // client-provided tools are used
}

// Tool is an AG-UI Tool: a name, a description and, when known, the JSON
// Schema of its parameters.
type Tool struct {
	Name        string `json:"name"`                 // tool name (here: the skill)
	Description string `json:"description"`          // what the tool does
	Parameters  any    `json:"parameters,omitempty"` // JSON Schema of the parameters, when known
}

// OutputCapabilities is AG-UI OutputCapabilities.
type OutputCapabilities struct {
	StructuredOutput   *bool    `json:"structuredOutput,omitempty"`   // JSON output matching a schema
	SupportedMimeTypes []string `json:"supportedMimeTypes,omitempty"` // MIME types the agent produces
}

// StateCapabilities is AG-UI StateCapabilities.
type StateCapabilities struct {
	Snapshots       *bool `json:"snapshots,omitempty"`       // emits STATE_SNAPSHOT
	Deltas          *bool `json:"deltas,omitempty"`          // emits STATE_DELTA
	Memory          *bool `json:"memory,omitempty"`          // long-term memory beyond the thread
	PersistentState *bool `json:"persistentState,omitempty"` // state kept across runs
}

// MultiAgentCapabilities is AG-UI MultiAgentCapabilities. The list of
// agents is "subagents" in JSON, as @ag-ui/core 1.0 names it (earlier
// drafts said "subAgents", which current clients do not read).
type MultiAgentCapabilities struct {
	Supported  *bool      `json:"supported,omitempty"`  // takes part in multi-agent coordination
	Delegation *bool      `json:"delegation,omitempty"` // may delegate subtasks to other agents
	Handoffs   *bool      `json:"handoffs,omitempty"`   // may hand the conversation over
	SubAgents  []SubAgent `json:"subagents,omitempty"`  // agents it may invoke
}

// SubAgent is one entry of MultiAgentCapabilities.SubAgents (AG-UI
// SubagentInfo).
type SubAgent struct {
	Name        string `json:"name"`                  // the sub-agent's name
	Description string `json:"description,omitempty"` // what it does
}

// ReasoningCapabilities is AG-UI ReasoningCapabilities.
type ReasoningCapabilities struct {
	Supported *bool `json:"supported,omitempty"` // reasoning tokens visible
	Streaming *bool `json:"streaming,omitempty"` // reasoning streamed incrementally
	Encrypted *bool `json:"encrypted,omitempty"` // reasoning content encrypted
}

// MultimodalCapabilities is AG-UI MultimodalCapabilities.
type MultimodalCapabilities struct {
	Input  *MultimodalInputCapabilities  `json:"input,omitempty"`  // modalities accepted
	Output *MultimodalOutputCapabilities `json:"output,omitempty"` // modalities produced
}

// MultimodalInputCapabilities is AG-UI MultimodalInputCapabilities.
type MultimodalInputCapabilities struct {
	Image *bool `json:"image,omitempty"` // image input
	Audio *bool `json:"audio,omitempty"` // audio input
	Video *bool `json:"video,omitempty"` // video input
	PDF   *bool `json:"pdf,omitempty"`   // PDF input
	File  *bool `json:"file,omitempty"`  // arbitrary file upload
}

// MultimodalOutputCapabilities is AG-UI MultimodalOutputCapabilities.
type MultimodalOutputCapabilities struct {
	Image *bool `json:"image,omitempty"` // image output
	Audio *bool `json:"audio,omitempty"` // audio output
}

// ExecutionCapabilities is AG-UI ExecutionCapabilities. MaxExecutionTime
// is in milliseconds.
type ExecutionCapabilities struct {
	CodeExecution    *bool  `json:"codeExecution,omitempty"`    // executes code during a run
	Sandboxed        *bool  `json:"sandboxed,omitempty"`        // code runs sandboxed
	MaxIterations    *int64 `json:"maxIterations,omitempty"`    // iteration cap per run
	MaxExecutionTime *int64 `json:"maxExecutionTime,omitempty"` // wall-clock limit, milliseconds
}

// HumanInTheLoopCapabilities is AG-UI HumanInTheLoopCapabilities.
type HumanInTheLoopCapabilities struct {
	Supported        *bool `json:"supported,omitempty"`        // any human-in-the-loop support
	Approvals        *bool `json:"approvals,omitempty"`        // asks approval before sensitive actions
	Interventions    *bool `json:"interventions,omitempty"`    // humans may modify the plan
	Feedback         *bool `json:"feedback,omitempty"`         // uses user feedback
	Interrupts       *bool `json:"interrupts,omitempty"`       // AG-UI interrupt protocol
	ApproveWithEdits *bool `json:"approveWithEdits,omitempty"` // resume accepts editedArgs
}
