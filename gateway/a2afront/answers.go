package a2afront

import (
	"net/http"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// The answers of the calls the front forwarded come back through the same
// proxy, whose response hook runs them through the answer pipeline
// (package answer) before the caller sees anything: a unary answer as a
// whole, a stream event by event, as each event arrives. The front wires
// its processors in New, in order: task ownership (taskAnswer), id
// mapping (mapIDs), generation translation (translateAnswer). Before
// each event of a stream the call's freeze is checked again (haltFrozen),
// so a freeze ends a stream opened before it.

// modifyAnswer is the agents' proxy hook. Answers of requests that name
// no call (the resolution hook) are left as they are.
func (f *Front) modifyAnswer(resp *http.Response) error {
	u, ok := upstreamFrom(resp.Request.Context())
	if !ok || u.c == nil {
		return nil
	}
	c := u.c
	ac := answer.Call[*call]{Value: c, ID: c.req.ID, Target: c.agent.cfg.Name, Scoped: c.scope != nil, MaxBytes: c.agent.maxAnswer,
		Halt: f.haltFrozen(c)}
	if speaksV1(agentcard.SpokenVersion(c.req.Method, c.http.Header.Get("A2A-Version"))) {
		ac.Shape = (*jsonrpc.Error).Detailed
	}
	if c.scope != nil {
		ac.Lines = func() answer.LineFilter { return answer.Lines(c.scope.IDMap(c.agent.known)) }
	}
	return f.answers.Modify(resp, ac)
}
