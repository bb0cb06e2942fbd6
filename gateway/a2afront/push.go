package a2afront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/pushrelay"
)

// Push configs (package pushrelay). A push config set on a call the
// gateway relays (one scoped to a capability, or any call on an agent
// whose push_relay is all) never reaches the agent as the caller wrote
// it: the caller's URL and credentials stay sealed in the relay store,
// and the agent is handed a relay URL of the gateway's own with a
// per-config secret (relayedConfig). A scoped call on an agent the
// gateway cannot relay for is refused. The answers that carry a relayed
// config (set, get, list) show the caller its own URL again
// (pushAnswer); what the agent posts to the relay URL is served by
// pushin.go.

// relays says whether the push config of c is relayed; a call scoped to
// a capability that cannot be relayed is refused, never forwarded.
func (f *Front) relays(c *call) (bool, *jsonrpc.Error) {
	mode := c.agent.cfg.PushRelay
	if f.deps.Push != nil && mode == config.PushRelayAll {
		return true, nil
	}
	if c.scope == nil {
		return false, nil
	}
	if f.deps.Push != nil && mode != config.PushRelayOff {
		return true, nil
	}
	return false, &jsonrpc.Error{Code: codeUnsupportedOperation,
		Message: "push notifications on a task scoped to a capability go through the gateway's relay, which is off for agent " +
			c.agent.cfg.Name + "; the push config was not forwarded",
		Data: map[string]any{"reason": "push_not_relayed", "capability": agentcard.ReqPushNotifications}}
}

// pushSupported refuses a call carrying a push config to an agent whose
// card declares no push notifications: -32004, as for the push-config
// methods.
func (f *Front) pushSupported(ctx context.Context, c *call) *jsonrpc.Error {
	_, card, err := c.agent.card.Card(ctx)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the agent's card is unavailable; the call was not forwarded",
			Data: map[string]string{"reason": "card_unavailable"}}
	}
	method, header := upstreamCall(card, c)
	return hopError(agentcard.Validate(card, agentcard.Requirements{ProtocolVersion: agentcard.SpokenVersion(method, header),
		Capabilities: []string{agentcard.ReqPushNotifications}}))
}

// relayedConfig seals the caller's push config raw (at the member path
// at) for task ("" when a send starts it) and returns the config the
// agent gets instead: the relay URL, the secret as its token, and the
// config's id.
func (f *Front) relayedConfig(ctx context.Context, c *call, raw json.RawMessage, at, task string) (map[string]string, *jsonrpc.Error) {
	pc, err := pushrelay.ParseConfig(raw)
	if err != nil {
		return nil, invalidMember(at, err.Error(), nil)
	}
	if err := f.deps.Push.Targets.CheckTarget(ctx, pc.Target.URL); err != nil {
		return nil, invalidMember(at+".url", err.Error(), map[string]any{"detail": "push_target_refused"})
	}
	rec := pushrelay.Record{Agent: c.agent.cfg.Name, Owner: c.principal.ID, Task: task, ConfigID: pc.ID,
		CallerConfigID: pc.ID, Target: pc.Target, Created: f.deps.Now()}
	if c.scope != nil {
		rec.CapabilityID = c.scope.Claims.CapabilityID
	}
	_, rec.V1 = f.translationOf(ctx, c)
	rec, secret, err := pushrelay.NewRecord(rec)
	if err == nil {
		err = f.deps.Push.Store.Put(ctx, rec)
	}
	if e := relayStoreError(ctx, f, err); e != nil {
		return nil, e
	}
	f.audit(ctx, EventPush, slog.String("caller", rec.Owner), slog.String("agent", rec.Agent), slog.String("task", task),
		slog.String("relay_id", rec.ID), slog.String("capability_id", rec.CapabilityID),
		slog.String("target_host", targetHost(pc.Target.URL)), slog.String("decision", "relayed"))
	return map[string]string{"id": rec.ConfigID, "url": f.deps.Push.URLFor(rec.Agent, rec.ID), "token": secret}, nil
}

// relayStoreError puts a relay store failure on the wire: unavailable
// fails closed as every store does; full is the gateway's own limit, in
// all or for the caller (push_relay.max_configs_per_principal, named in
// data.limit).
func relayStoreError(ctx context.Context, f *Front, err error) *jsonrpc.Error {
	var mine *pushrelay.PrincipalFullError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &mine):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternal,
			Message: fmt.Sprintf("the caller holds %d relayed push configs, the most one principal may; "+
				"delete one or wait for one to expire", mine.Limit),
			Data: map[string]any{"reason": "push_relay_principal_full", "limit": mine.Limit}}
	case errors.Is(err, pushrelay.ErrFull):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the gateway relays too many push configs; try again later",
			Data: map[string]any{"reason": "push_relay_full"}}
	}
	f.deps.Logger.WarnContext(ctx, "push relay store failed; refusing", "error", err)
	return wireError(enforce.Unavailable(enforce.PushRelayStore, ""))
}

// sendPush finds the push config a send carries (configuration's
// pushNotificationConfig, or v1.0's taskPushNotificationConfig, in any
// spelling an agent may read). A send carrying one to an agent without
// push support is refused; a relayed one is sealed, and apply puts the
// relay's config in its place once the rest of params is final.
func (f *Front) sendPush(ctx context.Context, c *call, params map[string]json.RawMessage) (apply func(), e *jsonrpc.Error) {
	confKey, pushKey, raw, found, e := findSendPush(params)
	if e != nil || !found {
		return nil, e
	}
	if e := f.pushSupported(ctx, c); e != nil {
		return nil, e
	}
	relay, e := f.relays(c)
	if e != nil || !relay {
		return nil, e
	}
	cfg, e := f.relayedConfig(ctx, c, raw, "params."+confKey+"."+pushKey, "")
	if e != nil {
		return nil, e
	}
	return func() {
		conf, _ := jsonrpc.LenientMembers(params[confKey])
		conf[pushKey], _ = json.Marshal(cfg)
		params[confKey], _ = json.Marshal(conf)
	}, nil
}

// findSendPush returns where a send's push config is, if it has one.
// Two of them (under two spellings an agent may read as one, or v0.3's
// and v1.0's names side by side) are refused: the relay would seal one
// and forward the other.
func findSendPush(params map[string]json.RawMessage) (confKey, pushKey string, raw json.RawMessage, found bool, e *jsonrpc.Error) {
	for k, v := range params {
		if !jsonrpc.LenientName(k, "configuration") {
			continue
		}
		conf, ok := jsonrpc.LenientMembers(v)
		if !ok {
			continue
		}
		for ck, cv := range conf {
			if (jsonrpc.LenientName(ck, "pushNotificationConfig") || jsonrpc.LenientName(ck, "taskPushNotificationConfig")) &&
				string(cv) != "null" {
				if found {
					return "", "", nil, false, invalidMember("params.configuration", "the send carries more than one push config", nil)
				}
				confKey, pushKey, raw, found = k, ck, cv, true
			}
		}
	}
	return confKey, pushKey, raw, found, nil
}

// targetHost is the host of a caller's push URL, for the audit trail: the
// rest of the URL may carry the caller's secrets.
func targetHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
