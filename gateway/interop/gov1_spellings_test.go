package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// rawAnswer is the first JSON-RPC response of an answer: the whole body,
// or the first event of a stream.
type rawAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// postFirst posts one JSON-RPC call to url (with alice's key when bearer
// is set) and reads the first response: a stream is left after its first
// event.
func postFirst(ctx context.Context, t *testing.T, url, body string, bearer bool) rawAnswer {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	if bearer {
		req.Header.Set("Authorization", "Bearer "+quickstart.AliceKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && raw == nil {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				raw = []byte(strings.TrimSpace(data))
			}
		}
	} else {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		raw = buf.Bytes()
	}
	var a rawAnswer
	if err := json.Unmarshal(raw, &a); err != nil || (a.Result == nil && a.Error == nil) {
		t.Fatalf("%s: no JSON-RPC answer: %q (%v)", body, raw, err)
	}
	return a
}

// TestGoV1AgentOlderV1Spellings: a stock a2a-go/v2 agent knows only the
// v1.0 names of its methods, and answers an older v1 spelling with
// -32601 when it is called directly. Through the gateway the same calls
// succeed: the agent receives the v1.0 names.
func TestGoV1AgentOlderV1Spellings(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, cctx := goV1ClientFor(ctx, t, w, goV1Agent)
	task := holdTask(cctx, t, c)
	hook := `"url":"http://127.0.0.1:9/hook","token":"tok"`
	tests := []struct{ method, params, current, want string }{
		{"SetTaskPushNotificationConfig", `{"taskId":%q,"id":"p-1",` + hook + `}`, "CreateTaskPushNotificationConfig", `"id":"p-1"`},
		{"ListTaskPushNotificationConfig", `{"taskId":%q}`, "ListTaskPushNotificationConfigs", `"configs":[`},
		{"TaskResubscription", `{"id":%q}`, "SubscribeToTask", `"task":{`},
		{"TaskSubscription", `{"id":%q}`, "SubscribeToTask", `"task":{`},
	}
	for i, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":`+tt.params+`}`, i+1, tt.method, task.ID)
			if a := postFirst(ctx, t, w.goV1.URL, body, false); a.Error == nil || a.Error.Code != -32601 {
				t.Fatalf("the agent itself answered %s with %+v, want -32601", tt.method, a)
			}
			before := len(w.goV1.methods())
			a := postFirst(ctx, t, w.URL+"/a2a/"+goV1Agent, body, true)
			if a.Error != nil || !strings.Contains(string(a.Result), tt.want) {
				t.Fatalf("%s through the gateway: result %s, error %+v; want a result with %s", tt.method, a.Result, a.Error, tt.want)
			}
			if got := w.goV1.methods()[before:]; !slices.Equal(got, []string{tt.current}) {
				t.Errorf("through the gateway the agent received %v, want [%s]", got, tt.current)
			}
		})
	}
	// The extended card: the agent has none to give, and says so, under
	// its v1.0 name only; through the gateway the old spelling gets that
	// answer.
	own := postFirst(ctx, t, w.goV1.URL, `{"jsonrpc":"2.0","id":9,"method":"GetExtendedAgentCard","params":{}}`, false)
	body := `{"jsonrpc":"2.0","id":9,"method":"GetAuthenticatedExtendedCard","params":{}}`
	if a := postFirst(ctx, t, w.goV1.URL, body, false); a.Error == nil || a.Error.Code != -32601 {
		t.Fatalf("the agent itself answered GetAuthenticatedExtendedCard with %+v, want -32601", a)
	}
	a := postFirst(ctx, t, w.URL+"/a2a/"+goV1Agent, body, true)
	if own.Error == nil || own.Error.Code == -32601 || a.Error == nil || a.Error.Code != own.Error.Code {
		t.Errorf("GetAuthenticatedExtendedCard through the gateway: %+v; the agent answers GetExtendedAgentCard with %+v", a.Error, own.Error)
	}
}
