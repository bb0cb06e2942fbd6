package a2afront

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
)

// fuzzMethods are the methods whose answers the front builds itself.
var fuzzMethods = []string{
	jsonrpc.MethodCapabilitiesRequest, jsonrpc.MethodCapabilitiesAttenuate,
	jsonrpc.MethodCapabilitiesRevoke, jsonrpc.MethodSkillInvoke, jsonrpc.MethodSendMessage,
}

// expandFuzzParams fills the placeholders a seed may use: $CID and $TOK
// for a live capability of alice's, $NOW for the fixture's clock (to the
// nanosecond), $SOON for the last nanosecond of its second, and $BIG for 64 KiB of
// text.
func expandFuzzParams(params, cid, tok string, now time.Time) string {
	return strings.NewReplacer(
		"$CID", cid, "$TOK", tok, "$BIG", strings.Repeat("x", 64<<10),
		"$NOW", now.Format(time.RFC3339Nano), "$SOON", now.Truncate(time.Second).Add(time.Second-time.Nanosecond).Format(time.RFC3339Nano),
	).Replace(params)
}

// FuzzCallerInput asserts that no caller input to a method the gateway
// answers itself yields -32603 internal error: every bad input has its
// own code and reason. Seeds live in testdata/fuzz/FuzzCallerInput.
func FuzzCallerInput(f *testing.F) {
	f.Add(uint8(0), `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`, "", false)
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, method uint8, params, header string, asBob bool) {
		if strings.Contains(params, "$TOK") || strings.Contains(header, "$TOK") || strings.Contains(params, "$CID") {
			// Issued per input: a revocation by one input never starves the next.
			capb := fx.issue(t)
			params = expandFuzzParams(params, capb.ID, capb.Token, fx.now)
			header = expandFuzzParams(header, capb.ID, capb.Token, fx.now)
		}
		params = expandFuzzParams(params, "", "", fx.now)
		m := fuzzMethods[int(method)%len(fuzzMethods)]
		if !json.Valid([]byte(params)) {
			return
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": m, "params": json.RawMessage(params)})
		if _, _, err := jsonrpc.Decode(body, fx.front.cfg.Limits); err != nil {
			return // the decoder's own refusals are covered by its fuzz target
		}
		key := aliceKey
		if asBob {
			key = bobKey
		}
		c := fx.call(t, key, "documents", string(body))
		if header != "" {
			c.http.Header.Set(proxy.HeaderCapabilityToken, header)
		}
		out := fx.front.decide(context.Background(), c)
		if out.resp != nil && out.resp.Error != nil && out.resp.Error.Code == jsonrpc.CodeInternal {
			t.Fatalf("%s %s answered internal error: %+v", m, params, out.resp.Error)
		}
	})
}
