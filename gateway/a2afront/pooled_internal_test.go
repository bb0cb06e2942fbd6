package a2afront

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestPooledAnswersStayApart: answers are held in pooled buffers that go
// back to the pool once the proxy has written them; callers invoking at
// once, with answers of many sizes, some mapped (naming the capability's
// real id) and some passed as read, each get their own answer and
// nothing of another's.
func TestPooledAnswersStayApart(t *testing.T) {
	data, err := readQuickstartPolicy()
	if err != nil {
		t.Fatal(err)
	}
	up := &recorder{answer: func(w http.ResponseWriter, _ *http.Request, method string, id json.RawMessage, _ []byte) bool {
		if method != "a2a/skill/invoke" {
			return false
		}
		var n int
		_ = json.Unmarshal(id, &n)
		piece := fmt.Sprintf("m%d- plain words ", n)
		if n%2 == 0 {
			piece = fmt.Sprintf("m%d- see reports/q1-financial ", n)
		}
		text := strings.Repeat(piece, (8<<10+n*701)/len(piece))
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"`+text+`"}]}}`)
		return true
	}}
	fx := newFixtureWith(t, fixtureConfig, data, quickstartCatalog(), up)
	capb := fx.issue(t)
	handle := capb.ResourceHandles[0].Handle
	marker := regexp.MustCompile(`m(\d+)-`)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				n := 1 + g*10 + i
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","capabilityId":%q,"arguments":{"resourceHandle":%q}}}`,
					n, capb.ID, handle)
				status, got := fx.post(t, aliceKey, "documents", body, nil)
				if status != http.StatusOK || !json.Valid([]byte(got)) {
					t.Errorf("call %d: status %d, %.200s", n, status, got)
					return
				}
				for _, m := range marker.FindAllStringSubmatch(got, -1) {
					if m[1] != fmt.Sprint(n) {
						t.Errorf("call %d got call %s's answer", n, m[1])
						return
					}
				}
				if strings.Contains(got, "reports/q1-financial") || n%2 == 0 && !strings.Contains(got, "see "+handle) {
					t.Errorf("call %d: the real id was not mapped to the handle: %.200s", n, got)
				}
			}
		})
	}
	wg.Wait()
}
