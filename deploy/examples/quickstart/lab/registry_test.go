package lab

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

var testNow = time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return testNow }

// TestNegotiateSeedExample is the example of the A2E capability
// negotiation document: tools, memory, env and chains requested from a
// host with a tool, a memory and an env plugin and no chain plugin.
func TestNegotiateSeedExample(t *testing.T) {
	reg, err := NewCapabilityRegistry(DefaultPlugins(fixedNow)...)
	if err != nil {
		t.Fatal(err)
	}
	got := reg.Negotiate([]string{"tools", "memory", "env", "chains"})
	md := func(name, typ string) map[string]any {
		return map[string]any{"name": name, "type": typ, "priority": 0, "exclusive": false, "plugins": []string{name}}
	}
	want := []a2e.Capability{
		{Capability: "tools", Enabled: true, Metadata: md("basic-tools", "tools")},
		{Capability: "memory", Enabled: true, Metadata: md("kv-memory", "memory")},
		{Capability: "env", Enabled: true, Metadata: md("gridworld", "env")},
		{Capability: "chains", Enabled: false, Metadata: map[string]any{"reason": "no plugin loaded"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Negotiate =\n%#v\nwant\n%#v", got, want)
	}
}

func TestNegotiateDedupesAndKeepsOrder(t *testing.T) {
	reg, _ := NewCapabilityRegistry(DefaultPlugins(fixedNow)...)
	got := reg.Negotiate([]string{"env", "bogus", "env", "tools"})
	var names []string
	for _, c := range got {
		names = append(names, c.Capability)
	}
	if !reflect.DeepEqual(names, []string{"env", "bogus", "tools"}) || got[1].Enabled || got[1].Reason() != ReasonNoPlugin {
		t.Errorf("Negotiate = %+v", got)
	}
}

// echoTools returns a tools plugin whose echo answers with its own name.
func echoTools(name string, priority int, exclusive bool, extra ...string) *ToolPlugin {
	tools := map[string]Tool{"echo": {Run: func(context.Context, map[string]any) (any, error) { return name, nil }}}
	for _, e := range extra {
		tools[e] = Tool{Run: func(context.Context, map[string]any) (any, error) { return name + ":" + e, nil }}
	}
	return NewToolPlugin(PluginInfo{Name: name, Priority: priority, Exclusive: exclusive}, tools)
}

func TestDispatchOrder(t *testing.T) {
	tests := []struct {
		name          string
		plugins       []Plugin
		wantOrder     []string
		wantPreferred string
	}{
		{"higher priority first", []Plugin{echoTools("low", 0, false), echoTools("high", 10, false)}, []string{"high", "low"}, "high"},
		{"ties keep registration order", []Plugin{echoTools("a", 1, false), echoTools("b", 1, false)}, []string{"a", "b"}, "a"},
		{"negative priority last", []Plugin{echoTools("neg", -1, false), echoTools("zero", 0, false)}, []string{"zero", "neg"}, "zero"},
		{"exclusive alone, whatever its priority", []Plugin{echoTools("high", 10, false), echoTools("excl", -5, true)}, []string{"excl"}, "excl"},
		{"first exclusive by priority", []Plugin{echoTools("x1", 1, true), echoTools("x2", 2, true)}, []string{"x2"}, "x2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := NewCapabilityRegistry(tc.plugins...)
			if err != nil {
				t.Fatal(err)
			}
			var order []string
			for _, p := range reg.Dispatch(a2e.TypeToolCallReq) {
				order = append(order, p.Info().Name)
			}
			if !reflect.DeepEqual(order, tc.wantOrder) {
				t.Errorf("Dispatch order = %v, want %v", order, tc.wantOrder)
			}
			caps := reg.Negotiate([]string{"tools"})
			if caps[0].Metadata["name"] != tc.wantPreferred {
				t.Errorf("metadata name = %v, want %s", caps[0].Metadata["name"], tc.wantPreferred)
			}
			if reg.Dispatch(a2e.TypeEnvStepReq) != nil || reg.Dispatch("teleport") != nil {
				t.Error("Dispatch returned plugins for a type none serves")
			}
		})
	}
}

func TestRegisterRefuses(t *testing.T) {
	tests := []struct {
		name    string
		plugins []Plugin
		wantErr error
	}{
		{"nil", []Plugin{nil}, ErrInvalidPlugin},
		{"no name", []Plugin{NewToolPlugin(PluginInfo{}, nil)}, ErrInvalidPlugin},
		{"type not a capability", []Plugin{badType{}}, ErrInvalidPlugin},
		{"duplicate name", []Plugin{echoTools("t", 0, false), echoTools("t", 1, false)}, ErrDuplicatePlugin},
		{"quickstart", DefaultPlugins(fixedNow), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewCapabilityRegistry(tc.plugins...); !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

type badType struct{}

func (badType) Info() PluginInfo                                               { return PluginInfo{Name: "bad", Type: "chain"} }
func (badType) Serves(string) bool                                             { return true }
func (badType) Handle(context.Context, *Session, a2e.Message) (a2e.Body, bool) { return nil, false }
