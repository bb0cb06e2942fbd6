package lab

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/capgate/capgate/gateway/a2e"
)

// MaxMemoryEntries bounds the entries kv-memory keeps per session.
const MaxMemoryEntries = 1024

// KVMemory is the quickstart kv-memory plugin (memory, priority 0): a
// key-value store per session and memory id.
type KVMemory struct{ info PluginInfo }

var _ Plugin = (*KVMemory)(nil)

// NewKVMemory returns the kv-memory plugin.
func NewKVMemory() *KVMemory {
	return &KVMemory{info: PluginInfo{Name: "kv-memory", Type: a2e.CapMemory}}
}

// kvState is one session's memories.
type kvState struct {
	mu   sync.Mutex
	mems map[string]map[string]any
	n    int
}

// Info implements Plugin.
func (p *KVMemory) Info() PluginInfo { return p.info }

// Serves implements Plugin.
func (p *KVMemory) Serves(msgType string) bool {
	return msgType == a2e.TypeMemoryStoreReq || msgType == a2e.TypeMemoryRetrieveReq
}

// Handle implements Plugin.
func (p *KVMemory) Handle(_ context.Context, s *Session, m a2e.Message) (a2e.Body, bool) {
	st := s.State(p.info.Name, func() any { return &kvState{mems: map[string]map[string]any{}} }).(*kvState)
	st.mu.Lock()
	defer st.mu.Unlock()
	switch b := m.Body.(type) {
	case *a2e.MemoryStoreReq:
		mem := st.mems[b.MemoryID]
		if mem == nil {
			mem = map[string]any{}
			st.mems[b.MemoryID] = mem
		}
		stored := 0
		for _, e := range b.Entries {
			if _, exists := mem[e.Key]; !exists {
				if st.n >= MaxMemoryEntries {
					return &a2e.Error{ReqID: m.ID, Code: a2e.CodeInvalidArguments, Message: "memory full"}, true
				}
				st.n++
			}
			mem[e.Key] = e.Value
			stored++
		}
		return &a2e.MemoryStoreResp{ReqID: m.ID, MemoryID: b.MemoryID, Stored: stored}, true
	case *a2e.MemoryRetrieveReq:
		return &a2e.MemoryRetrieveResp{ReqID: m.ID, MemoryID: b.MemoryID, Entries: retrieve(st.mems[b.MemoryID], b)}, true
	}
	return nil, false
}

// retrieve returns mem's entries selected by r, in key order.
func retrieve(mem map[string]any, r *a2e.MemoryRetrieveReq) []a2e.MemoryEntry {
	out := []a2e.MemoryEntry{}
	for k, v := range mem {
		if len(r.Keys) == 0 || slices.Contains(r.Keys, k) {
			out = append(out, a2e.MemoryEntry{Key: k, Value: v})
		}
	}
	slices.SortFunc(out, func(a, b a2e.MemoryEntry) int { return strings.Compare(a.Key, b.Key) })
	if r.Limit > 0 && len(out) > r.Limit {
		out = out[:r.Limit]
	}
	return out
}
