package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// The push-config methods of a relayed task: set seals the caller's
// config and hands the agent the relay's; delete forgets the sealed
// config; the answers of set, get and list show the caller its own
// config again (pushAnswer).

// pushSet decides a set (tasks/pushNotificationConfig/set, v0.1's
// tasks/pushNotification/set, v1.0's CreateTaskPushNotificationConfig).
func (f *Front) pushSet(ctx context.Context, c *call) outcome {
	if e := f.hopCheck(ctx, c, false); e != nil {
		return fail(c.req.ID, e)
	}
	relay, e := f.relays(c)
	if e != nil {
		return fail(c.req.ID, e)
	}
	if !relay {
		return forwardAs(c)
	}
	params, ok := pushParams(c)
	if !ok {
		return fail(c.req.ID, invalidMember("params", "params must be an object", nil))
	}
	task := stringMember(params, "taskId")
	if raw, nested := params["pushNotificationConfig"]; nested {
		if task == "" {
			task = stringMember(params, "id") // v0.1 names the task id
		}
		for k := range params {
			if k != "taskId" && k != "id" && k != "pushNotificationConfig" && k != "metadata" {
				return fail(c.req.ID, invalidMember("params."+k, "not a member of a push config's params", nil))
			}
		}
		cfg, e := f.relayedConfig(ctx, c, raw, "params.pushNotificationConfig", task)
		if e != nil {
			return fail(c.req.ID, e)
		}
		params["pushNotificationConfig"], _ = json.Marshal(cfg)
		return outcome{forward: encodeRequest(c.req.ID, c.req.Method, params), cc: callerContext(c)}
	}
	if task == "" {
		return fail(c.req.ID, invalidMember("params.taskId", "the push config must name its task", nil))
	}
	raw, _ := json.Marshal(params)
	cfg, e := f.relayedConfig(ctx, c, raw, "params", task)
	if e != nil {
		return fail(c.req.ID, e)
	}
	flat := map[string]string{"taskId": task}
	for k, v := range cfg {
		flat[k] = v
	}
	return outcome{forward: encodeRequest(c.req.ID, c.req.Method, flat), cc: callerContext(c)}
}

// pushDelete forgets the relayed config a delete names, then forwards the
// delete. The task is params.id (v0.3) or params.taskId (v1.0), the config
// params.pushNotificationConfigId (v0.3) or params.id (v1.0).
func (f *Front) pushDelete(ctx context.Context, c *call) outcome {
	if e := f.hopCheck(ctx, c, false); e != nil {
		return fail(c.req.ID, e)
	}
	if f.deps.Push == nil {
		return forwardAs(c)
	}
	params, ok := pushParams(c)
	if !ok {
		return fail(c.req.ID, invalidMember("params", "params must be an object", nil))
	}
	task, cfgID := stringMember(params, "taskId"), stringMember(params, "id")
	if task == "" {
		task, cfgID = cfgID, stringMember(params, "pushNotificationConfigId")
	}
	recs, err := f.deps.Push.Store.ByTask(ctx, c.agent.cfg.Name, task)
	for _, r := range recs {
		if err == nil && r.Owner == c.principal.ID && (r.ConfigID == cfgID || cfgID == "") {
			err = f.deps.Push.Store.Delete(ctx, r)
		}
	}
	if e := relayStoreError(ctx, f, err); e != nil {
		return fail(c.req.ID, e)
	}
	return forwardAs(c)
}

// pushParams decodes the params of the call as it would be
// forwarded (a gated follow-up's capability members already removed).
func pushParams(c *call) (map[string]json.RawMessage, bool) {
	var req struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(c.req.Raw, &req) != nil || req.Params == nil {
		return nil, false
	}
	return req.Params, true
}

func stringMember(m map[string]json.RawMessage, name string) string {
	var s string
	_ = json.Unmarshal(m[name], &s)
	return s
}

// pushAnswer is the answer processor of the push-config methods: every
// config in the agent's answer whose url is one of the relay's URLs
// becomes the caller's config again (its URL, token and
// authentication), so neither the relay URL nor its secret reaches the
// caller. A relayed config the store cannot give back refuses the answer.
func (f *Front) pushAnswer(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	// Every answer of these calls is decoded: a byte search for the relay's
	// path would miss a URL written with escapes ("\/push\/").
	if f.deps.Push == nil || !isPushConfigCall(c.canonical) {
		return resp, nil
	}
	dec := json.NewDecoder(bytes.NewReader(resp))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v1 := c.translated == "" && speaksV1(agentcard.SpokenVersion(c.req.Method, c.http.Header.Get("A2A-Version")))
	changed, err := f.restoreConfigs(ctx, c, v, v1)
	if err != nil || !changed {
		return resp, err
	}
	return json.Marshal(v)
}

func isPushConfigCall(canonical string) bool {
	switch canonical {
	case jsonrpc.MethodSetTaskPushNotificationConfig, jsonrpc.MethodGetTaskPushNotificationConfig,
		jsonrpc.MethodListTaskPushNotificationConfig:
		return true
	}
	return false
}

// errRelayAnswer refuses an answer naming a relayed config the caller
// cannot be shown.
var errRelayAnswer = errors.New("a2a front: the answer names a relayed push config that cannot be shown to the caller")

// restoreConfigs rewrites, anywhere in v, each object whose url is a
// relay URL of c's agent.
func (f *Front) restoreConfigs(ctx context.Context, c *call, v any, v1 bool) (bool, error) {
	changed := false
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			ch, err := f.restoreConfigs(ctx, c, e, v1)
			if err != nil {
				return false, err
			}
			changed = changed || ch
		}
	case map[string]any:
		if u, ok := x["url"].(string); ok {
			if id, ok := f.deps.Push.IDOf(c.agent.cfg.Name, u); ok {
				return true, f.restoreConfig(ctx, c, x, id, v1)
			}
		}
		for _, e := range x {
			ch, err := f.restoreConfigs(ctx, c, e, v1)
			if err != nil {
				return false, err
			}
			changed = changed || ch
		}
	}
	return changed, nil
}

// restoreConfig puts the caller's target of record id into cfg, in the
// shape of the agent's generation (v1: one scheme).
func (f *Front) restoreConfig(ctx context.Context, c *call, cfg map[string]any, id string, v1 bool) error {
	rec, err := f.deps.Push.Store.Get(ctx, c.agent.cfg.Name, id)
	if err != nil || rec.Owner != c.principal.ID {
		f.deps.Logger.WarnContext(ctx, "relayed push config not shown", "agent", c.agent.cfg.Name, "error", err)
		return errRelayAnswer
	}
	t := rec.Target
	cfg["url"] = t.URL
	delete(cfg, "token")
	delete(cfg, "authentication")
	if t.Token != "" {
		cfg["token"] = t.Token
	}
	if a := t.Auth; a != nil {
		auth := map[string]any{"schemes": a.Schemes}
		if v1 && len(a.Schemes) > 0 {
			auth = map[string]any{"scheme": a.Schemes[0]}
		}
		if a.Credentials != "" {
			auth["credentials"] = a.Credentials
		}
		cfg["authentication"] = auth
	}
	return nil
}
