package a2e

import "strings"

// Message types with a struct in this package.
const (
	TypeHandshakeReq       = "handshake/req"
	TypeHandshakeResp      = "handshake/resp"
	TypeError              = "error"
	TypePing               = "ping"
	TypePong               = "pong"
	TypeShutdown           = "shutdown"
	TypeInvokeEvent        = "invoke/event"
	TypeToolListReq        = "tool/list/req"
	TypeToolListResp       = "tool/list/resp"
	TypeToolCallReq        = "tool/call/req"
	TypeToolCallResp       = "tool/call/resp"
	TypeMemoryStoreReq     = "memory/store/req"
	TypeMemoryStoreResp    = "memory/store/resp"
	TypeMemoryRetrieveReq  = "memory/retrieve/req"
	TypeMemoryRetrieveResp = "memory/retrieve/resp"
	TypeEnvResetReq        = "env/reset/req"
	TypeEnvResetResp       = "env/reset/resp"
	TypeEnvStepReq         = "env/step/req"
	TypeEnvStepResp        = "env/step/resp"
)

// A2E capability names (the A2ECapability enum, plus planning from the
// gateway's namespace table).
const (
	CapSkill      = "skill"
	CapTools      = "tools"
	CapToolkits   = "toolkits"
	CapEnv        = "env"
	CapProc       = "proc"
	CapMemory     = "memory"
	CapLearning   = "learning"
	CapChains     = "chains"
	CapMCP        = "mcp"
	CapMultiAgent = "multi_agent"
	CapPlanning   = "planning"
)

// MaxTypeLength bounds a message type.
const MaxTypeLength = 64

// CapabilityFor maps a message type to the capability a session must have
// negotiated before the message may pass. always is true for the types
// that pass on every session (handshake/*, ping, pong, shutdown, error,
// invoke/event), with capability "". For the namespaced types the
// capability is taken from the namespace, the part before the first "/"
// (tool/call/req → tools, see namespaceCapability). For anything else both results are
// zero: the type is unknown and must be refused.
func CapabilityFor(msgType string) (capability string, always bool) {
	switch msgType {
	case TypePing, TypePong, TypeShutdown, TypeError, TypeInvokeEvent:
		return "", true
	}
	ns, rest, found := strings.Cut(msgType, "/")
	if !found || !validTypeTail(rest) || len(msgType) > MaxTypeLength {
		return "", false
	}
	if ns == "handshake" {
		return "", true
	}
	return namespaceCapability(ns), false
}

// namespaceCapability maps a message namespace to the capability that
// must have been accepted for it; it is the whole table.
func namespaceCapability(ns string) string {
	switch ns {
	case "skill":
		return CapSkill
	case "tool":
		return CapTools
	case "toolkit":
		return CapToolkits
	case "env":
		return CapEnv
	case "proc":
		return CapProc
	case "memory":
		return CapMemory
	case "learn":
		return CapLearning
	case "chain":
		return CapChains
	case "mcp":
		return CapMCP
	case "multi_agent":
		return CapMultiAgent
	case "planning":
		return CapPlanning
	}
	return ""
}

// validTypeTail accepts the part of a type after its namespace: one or more
// "/"-separated segments of [a-z0-9_], none empty.
func validTypeTail(s string) bool {
	if s == "" {
		return false
	}
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "" {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
				return false
			}
		}
	}
	return true
}

// KnownType reports whether msgType may travel on the wire: a type that
// always passes, or a type in a capability namespace.
func KnownType(msgType string) bool {
	c, always := CapabilityFor(msgType)
	return always || c != ""
}

// IsRequest reports whether msgType is a request that expects a response
// carrying its id as req_id: a namespaced type ending in "/req" other than
// handshake/req.
func IsRequest(msgType string) bool {
	c, _ := CapabilityFor(msgType)
	return c != "" && strings.HasSuffix(msgType, "/req")
}
