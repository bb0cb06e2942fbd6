package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

// Tool is one tool of a ToolPlugin. It returns the result or an error
// that is reported in tool/call/resp.error.
type Tool struct {
	// Description is for humans and models.
	Description string
	// Run executes the tool.
	Run func(ctx context.Context, args map[string]any) (any, error)
}

// ToolPlugin serves tool/list/req and tool/call/req from a fixed set of
// tools. A call naming a tool it does not have is passed to the next tools
// plugin in dispatch order.
type ToolPlugin struct {
	info  PluginInfo
	tools map[string]Tool
}

var _ Plugin = (*ToolPlugin)(nil)

// NewToolPlugin returns a tools plugin; info.Type is set to "tools".
func NewToolPlugin(info PluginInfo, tools map[string]Tool) *ToolPlugin {
	info.Type = a2e.CapTools
	return &ToolPlugin{info: info, tools: tools}
}

// NewBasicTools returns the quickstart basic-tools plugin (priority 0):
// echo, which answers {"text": arguments.text}, and clock, which answers
// the time of now as {"now": RFC 3339, "unix": seconds}.
func NewBasicTools(now func() time.Time) *ToolPlugin {
	return NewToolPlugin(PluginInfo{Name: "basic-tools"}, map[string]Tool{
		"echo": {Description: "Echo arguments.text back.", Run: func(_ context.Context, args map[string]any) (any, error) {
			text, ok := args["text"].(string)
			if !ok {
				return nil, errors.New("arguments.text must be a string")
			}
			return map[string]any{"text": text}, nil
		}},
		"clock": {Description: "Tell the host's time.", Run: func(context.Context, map[string]any) (any, error) {
			t := now().UTC()
			return map[string]any{"now": t.Format(time.RFC3339Nano), "unix": a2e.Timestamp(t)}, nil
		}},
	})
}

// Info implements Plugin.
func (p *ToolPlugin) Info() PluginInfo { return p.info }

// Serves implements Plugin.
func (p *ToolPlugin) Serves(msgType string) bool {
	return msgType == a2e.TypeToolListReq || msgType == a2e.TypeToolCallReq
}

// Handle implements Plugin.
func (p *ToolPlugin) Handle(ctx context.Context, _ *Session, m a2e.Message) (a2e.Body, bool) {
	switch b := m.Body.(type) {
	case *a2e.ToolListReq:
		return &a2e.ToolListResp{ReqID: m.ID, Tools: p.List()}, true
	case *a2e.ToolCallReq:
		t, ok := p.tools[b.ToolName]
		if !ok {
			return nil, false
		}
		resp := &a2e.ToolCallResp{ReqID: m.ID, CorrelationID: b.CorrelationID}
		res, err := t.Run(ctx, b.Arguments)
		if err != nil {
			resp.Error = fmt.Sprintf("tool %s: %v", b.ToolName, err)
			return resp, true
		}
		resp.OK, resp.Result = true, res
		return resp, true
	}
	return nil, false
}

// List returns the plugin's tools in name order.
func (p *ToolPlugin) List() []a2e.ToolInfo {
	out := make([]a2e.ToolInfo, 0, len(p.tools))
	for name, t := range p.tools {
		out = append(out, a2e.ToolInfo{Name: name, Description: t.Description, Plugin: p.info.Name})
	}
	slices.SortFunc(out, func(a, b a2e.ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}
