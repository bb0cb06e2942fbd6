package a2e

// ToolListReq is "tool/list/req".
type ToolListReq struct {
	// SessionID is the A2E session, when the agent sends it.
	SessionID string `json:"session_id,omitempty"`
}

// ToolListResp is "tool/list/resp".
type ToolListResp struct {
	// ReqID is the id of the request answered.
	ReqID string `json:"req_id" a2e:"required"`
	// Tools lists the tools the host offers.
	Tools []ToolInfo `json:"tools"`
}

// ToolInfo describes one tool.
type ToolInfo struct {
	// Name is the tool's name, used as ToolCallReq.ToolName.
	Name string `json:"name"`
	// Description is for humans and models.
	Description string `json:"description,omitempty"`
	// Plugin names the plugin serving the tool.
	Plugin string `json:"plugin,omitempty"`
	// Parameters is a JSON Schema of the arguments.
	Parameters map[string]any `json:"parameters,omitempty"`
}

// ToolCallReq is "tool/call/req".
type ToolCallReq struct {
	// ToolName names the tool.
	ToolName string `json:"tool_name" a2e:"required"`
	// Arguments are the tool's arguments.
	Arguments map[string]any `json:"arguments,omitempty"`
	// SessionID is the A2E session, when the agent sends it.
	SessionID string `json:"session_id,omitempty"`
	// CorrelationID ties the call to the agent's own bookkeeping.
	CorrelationID string `json:"correlation_id,omitempty"`
	// Streaming asks for invoke/event progress.
	Streaming bool `json:"streaming,omitempty"`
	// Timeout is in seconds; zero means the host's default.
	Timeout float64 `json:"timeout,omitempty"`
}

// ToolCallResp is "tool/call/resp".
type ToolCallResp struct {
	// ReqID is the id of the request answered.
	ReqID string `json:"req_id" a2e:"required"`
	// CorrelationID echoes the request's.
	CorrelationID string `json:"correlation_id,omitempty"`
	// OK reports success.
	OK bool `json:"ok"`
	// Result is the tool's output.
	Result any `json:"result,omitempty"`
	// Error says why the call failed.
	Error string `json:"error,omitempty"`
}

// MemoryEntry is one memory record.
type MemoryEntry struct {
	// Key names the entry.
	Key string `json:"key"`
	// Value is the stored value.
	Value any `json:"value"`
}

// MemoryStoreReq is "memory/store/req".
type MemoryStoreReq struct {
	// MemoryID names the memory.
	MemoryID string `json:"memory_id" a2e:"required"`
	// Entries are stored, replacing entries with the same key.
	Entries []MemoryEntry `json:"entries" a2e:"required"`
}

// MemoryStoreResp is "memory/store/resp".
type MemoryStoreResp struct {
	// ReqID is the id of the request answered.
	ReqID string `json:"req_id" a2e:"required"`
	// MemoryID names the memory.
	MemoryID string `json:"memory_id"`
	// Stored counts the entries written.
	Stored int `json:"stored"`
}

// MemoryRetrieveReq is "memory/retrieve/req".
type MemoryRetrieveReq struct {
	// MemoryID names the memory.
	MemoryID string `json:"memory_id" a2e:"required"`
	// Keys selects entries; empty means all.
	Keys []string `json:"keys,omitempty"`
	// Limit bounds the answer; zero means no bound.
	Limit int `json:"limit,omitempty"`
}

// MemoryRetrieveResp is "memory/retrieve/resp".
type MemoryRetrieveResp struct {
	// ReqID is the id of the request answered.
	ReqID string `json:"req_id" a2e:"required"`
	// MemoryID names the memory.
	MemoryID string `json:"memory_id"`
	// Entries are the entries found, in key order.
	Entries []MemoryEntry `json:"entries"`
}

// EnvResetReq is "env/reset/req".
type EnvResetReq struct {
	// EnvID names the environment; empty means the host's default.
	EnvID string `json:"env_id,omitempty"`
	// Seed makes the reset reproducible.
	Seed int64 `json:"seed,omitempty"`
}

// EnvResetResp is "env/reset/resp".
type EnvResetResp struct {
	// ReqID is the id of the request answered.
	ReqID string `json:"req_id" a2e:"required"`
	// EnvID names the environment.
	EnvID string `json:"env_id,omitempty"`
	// Observation is the initial observation.
	Observation any `json:"observation"`
}

// EnvStepReq is "env/step/req".
type EnvStepReq struct {
	// EnvID names the environment.
	EnvID string `json:"env_id,omitempty"`
	// Action is the action taken.
	Action any `json:"action" a2e:"required"`
}

// EnvStepResp is "env/step/resp".
type EnvStepResp struct {
	// ReqID is the id of the request answered.
	ReqID string `json:"req_id" a2e:"required"`
	// EnvID names the environment.
	EnvID string `json:"env_id,omitempty"`
	// Observation follows the action.
	Observation any `json:"observation"`
	// Reward is the action's reward.
	Reward float64 `json:"reward"`
	// Done reports the end of the episode.
	Done bool `json:"done"`
}

// MessageType implements Body.
func (ToolListReq) MessageType() string { return TypeToolListReq }

// MessageType implements Body.
func (ToolListResp) MessageType() string { return TypeToolListResp }

// MessageType implements Body.
func (ToolCallReq) MessageType() string { return TypeToolCallReq }

// MessageType implements Body.
func (ToolCallResp) MessageType() string { return TypeToolCallResp }

// MessageType implements Body.
func (MemoryStoreReq) MessageType() string { return TypeMemoryStoreReq }

// MessageType implements Body.
func (MemoryStoreResp) MessageType() string { return TypeMemoryStoreResp }

// MessageType implements Body.
func (MemoryRetrieveReq) MessageType() string { return TypeMemoryRetrieveReq }

// MessageType implements Body.
func (MemoryRetrieveResp) MessageType() string { return TypeMemoryRetrieveResp }

// MessageType implements Body.
func (EnvResetReq) MessageType() string { return TypeEnvResetReq }

// MessageType implements Body.
func (EnvResetResp) MessageType() string { return TypeEnvResetResp }

// MessageType implements Body.
func (EnvStepReq) MessageType() string { return TypeEnvStepReq }

// MessageType implements Body.
func (EnvStepResp) MessageType() string { return TypeEnvStepResp }

// newBody returns a new, empty body for msgType, or nil when the package
// has no struct for it.
func newBody(msgType string) Body {
	switch msgType {
	case TypeHandshakeReq:
		return &HandshakeReq{}
	case TypeHandshakeResp:
		return &HandshakeResp{}
	case TypeError:
		return &Error{}
	case TypePing:
		return &Ping{}
	case TypePong:
		return &Pong{}
	case TypeShutdown:
		return &Shutdown{}
	case TypeInvokeEvent:
		return &InvokeEvent{}
	}
	return newNamespacedBody(msgType)
}

func newNamespacedBody(msgType string) Body {
	switch msgType {
	case TypeToolListReq:
		return &ToolListReq{}
	case TypeToolListResp:
		return &ToolListResp{}
	case TypeToolCallReq:
		return &ToolCallReq{}
	case TypeToolCallResp:
		return &ToolCallResp{}
	case TypeMemoryStoreReq:
		return &MemoryStoreReq{}
	case TypeMemoryStoreResp:
		return &MemoryStoreResp{}
	case TypeMemoryRetrieveReq:
		return &MemoryRetrieveReq{}
	case TypeMemoryRetrieveResp:
		return &MemoryRetrieveResp{}
	case TypeEnvResetReq:
		return &EnvResetReq{}
	case TypeEnvResetResp:
		return &EnvResetResp{}
	case TypeEnvStepReq:
		return &EnvStepReq{}
	case TypeEnvStepResp:
		return &EnvStepResp{}
	}
	return nil
}
