package documents_test

import (
	"strings"
	"testing"
)

// Odd params on every standard method get an answer, never a crash: a
// panic in a2asrv's detached executor goroutine would take the process down.
func TestStandardMethodsSurviveOddParams(t *testing.T) {
	_, srv := newServer(t)
	odd := []string{
		`null`, `[]`, `{}`, `"x"`, `{"id":""}`, `{"id":123}`, `{"message":null}`, `{"message":{}}`,
		`{"message":{"role":"user","parts":null}}`, `{"message":{"role":"user","parts":[null]}}`,
		`{"message":{"role":"user","parts":[{"kind":"file"}]}}`, `{"message":{"messageId":"m","role":"user","parts":[],"taskId":"nope"}}`,
		`{"message":{"messageId":"m","role":"user","parts":[{"data":[1,2]}]}}`, `{"id":"x","historyLength":-5}`,
	}
	methods := []string{
		"SendMessage", "message/send", "tasks/send", "GetTask", "tasks/get", "CancelTask", "tasks/cancel",
		"SendStreamingMessage", "message/stream", "tasks/resubscribe", "GetExtendedAgentCard",
		"tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/set",
	}
	for _, m := range methods {
		for _, p := range odd {
			body := `{"jsonrpc":"2.0","id":1,"method":"` + m + `","params":` + p + `}`
			resp := post(t, srv.URL, body, nil)
			var sb strings.Builder
			buf := make([]byte, 4096)
			for {
				n, err := resp.Body.Read(buf)
				sb.Write(buf[:n])
				if err != nil {
					break
				}
			}
			if !strings.Contains(sb.String(), `"jsonrpc"`) {
				t.Errorf("%s %s: no JSON-RPC answer (%d): %q", m, p, resp.StatusCode, sb.String())
			}
		}
	}
}
