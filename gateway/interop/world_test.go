package interop_test

import (
	"context"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway/config"
)

// Agent names under /a2a/ in the interop world.
const (
	// v03Agent is a stock a2a-go agent (goagent_test.go) that serves
	// A2A v0.3 only.
	v03Agent = "go03"
	// sepAgent is the quickstart's documents agent, built on a2a-go: it
	// serves the capability extension's methods and declares versions 0.1
	// to 1.0.
	sepAgent = "documents"
	// delegateAgent is the quickstart's summarizer, built on a2a-go: it
	// receives delegated capabilities.
	delegateAgent = "summarizer"
	// v1Agent is js/agent.mjs serving A2A v1.0 only.
	v1Agent = "jsv1"
	// bothAgent is js/agent.mjs serving v1.0 and v0.3.
	bothAgent = "jsboth"
	// goV1Agent is a stock a2a-go/v2 agent (gov1agent_test.go) that
	// serves A2A v1.0 only.
	goV1Agent = "gov1"
)

// world is the quickstart world with the stock a2a-go and a2a-go/v2
// agents and the two @a2a-js/sdk agents added.
type world struct {
	*quickstart.World
	kit string
	// goV1 is the a2a-go/v2 agent, what it received.
	goV1 *v1GoAgent
}

// startWorld starts the agents, then the quickstart world (the real
// gateway, built by gateway.FromConfig) with them configured as agents.
// Without withJS only the Go agents are started, and node is not needed.
func startWorld(t *testing.T, withJS bool) *world {
	t.Helper()
	return startWorldWith(t, withJS, nil)
}

// startWorldWith is startWorld with edit applied to each configured agent
// before the gateway is built.
func startWorldWith(t *testing.T, withJS bool, edit func(*config.Agent)) *world {
	t.Helper()
	goURL, goV1 := startGoAgent(t), startV1GoAgent(t)
	agents := []config.Agent{{Name: v03Agent, URL: goURL, Principal: "agent:" + v03Agent},
		{Name: goV1Agent, URL: goV1.URL, Principal: "agent:" + goV1Agent}}
	kit := ""
	if withJS {
		kit = jsKit(t)
		agents = append(agents,
			config.Agent{Name: v1Agent, URL: startJSAgent(t, kit, "v1"), Principal: "agent:" + v1Agent},
			config.Agent{Name: bothAgent, URL: startJSAgent(t, kit, "both"), Principal: "agent:" + bothAgent})
	}
	// The world serves until Close; its context must outlive this function.
	w, err := quickstart.Start(context.Background(), quickstart.Options{
		Configure: func(cfg *config.Config) {
			for _, a := range agents {
				a.CardRefresh = config.Duration(time.Minute)
				cfg.Agents = append(cfg.Agents, a)
			}
			for i := range cfg.Agents {
				if edit != nil {
					edit(&cfg.Agents[i])
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return &world{World: w, kit: kit, goV1: goV1}
}

// base is the agent's base URL under the gateway, as a client resolves it.
func (w *world) base(agent string) string { return w.URL + "/a2a/" + agent + "/" }
