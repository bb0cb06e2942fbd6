package lab

import (
	"context"
	"fmt"
	"sync"

	"github.com/capgate/capgate/gateway/a2e"
)

// Gridworld dimensions and rewards: the agent starts at (0,0) and the
// episode ends at the goal (GridSize-1, GridSize-1) or after MaxSteps.
const (
	GridSize   = 5
	MaxSteps   = 100
	StepReward = -0.01
	GoalReward = 1.0
)

// Gridworld is the quickstart gridworld plugin (env, priority 0): a tiny
// deterministic grid per session. Actions are "up", "down", "left" and
// "right"; moving into a wall leaves the agent in place.
type Gridworld struct{ info PluginInfo }

var _ Plugin = (*Gridworld)(nil)

// NewGridworld returns the gridworld plugin.
func NewGridworld() *Gridworld {
	return &Gridworld{info: PluginInfo{Name: "gridworld", Type: a2e.CapEnv}}
}

type gridState struct {
	mu          sync.Mutex
	reset, done bool
	x, y, steps int
}

func (g *gridState) observation() map[string]any {
	return map[string]any{"x": g.x, "y": g.y, "steps": g.steps, "goal": []int{GridSize - 1, GridSize - 1}}
}

// Info implements Plugin.
func (p *Gridworld) Info() PluginInfo { return p.info }

// Serves implements Plugin.
func (p *Gridworld) Serves(msgType string) bool {
	return msgType == a2e.TypeEnvResetReq || msgType == a2e.TypeEnvStepReq
}

// Handle implements Plugin.
func (p *Gridworld) Handle(_ context.Context, s *Session, m a2e.Message) (a2e.Body, bool) {
	g := s.State(p.info.Name, func() any { return &gridState{} }).(*gridState)
	g.mu.Lock()
	defer g.mu.Unlock()
	switch b := m.Body.(type) {
	case *a2e.EnvResetReq:
		g.reset, g.done, g.x, g.y, g.steps = true, false, 0, 0, 0
		return &a2e.EnvResetResp{ReqID: m.ID, EnvID: "gridworld", Observation: g.observation()}, true
	case *a2e.EnvStepReq:
		if !g.reset || g.done {
			return &a2e.Error{ReqID: m.ID, Code: a2e.CodeInvalidArguments, Message: "send env/reset/req first"}, true
		}
		dx, dy, ok := move(b.Action)
		if !ok {
			return &a2e.Error{ReqID: m.ID, Code: a2e.CodeInvalidArguments, Message: fmt.Sprintf("unknown action %v", b.Action)}, true
		}
		g.x, g.y = clamp(g.x+dx), clamp(g.y+dy)
		g.steps++
		reward := StepReward
		if g.x == GridSize-1 && g.y == GridSize-1 {
			reward, g.done = GoalReward, true
		}
		g.done = g.done || g.steps >= MaxSteps
		return &a2e.EnvStepResp{ReqID: m.ID, EnvID: "gridworld", Observation: g.observation(), Reward: reward, Done: g.done}, true
	}
	return nil, false
}

func move(action any) (dx, dy int, ok bool) {
	switch action {
	case "up":
		return 0, -1, true
	case "down":
		return 0, 1, true
	case "left":
		return -1, 0, true
	case "right":
		return 1, 0, true
	}
	return 0, 0, false
}

func clamp(v int) int { return max(0, min(GridSize-1, v)) }
