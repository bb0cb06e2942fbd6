package a2atasks

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// decodedAnswerTasks is what taskAnswer found before its fast path: the
// answer decoded into a map, then answerTasks on its result.
func decodedAnswerTasks(resp json.RawMessage) ([]string, error) {
	result, found, err := decodedResult(resp)
	if err != nil || !found {
		return nil, err
	}
	return answerTasks(result), nil
}

// taskAnswerSeeds are answers whose keys and values fold, repeat or
// decode in every way the fast path must match or hand over.
var taskAnswerSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","parts":[{"kind":"text","text":"ok"}]}}`,
	`{"result":{"kind":"task","id":"t1","status":{"state":"completed"}}}`,
	`{"result":{"kind":"message","taskId":"t1","task_id":"t2","TASKID":"t3"}}`,
	`{"result":{"taskId":"t1","taskId":"t2"}}`,
	`{"result":{"taskId":"t1"},"result":{"taskId":"t2"}}`,
	`{"result":{"taskId":"t1","task_id":7}}`,
	`{"result":{"taskId":null,"task_id":"t2"}}`,
	`{"result":{"taskId":""}}`,
	`{"result":{"kind":"t\u0061sk","id":"t\u00e9"}}`,
	`{"result":{"kind":["task"],"id":"t1"}}`,
	`{"result":{"kind":"task","Kind":"message","id":"t1"}}`,
	`{"result":{"Status":null,"ID":"t1"}}`,
	`{"result":{"id":"t1"}}`,
	`{"result":{"task":{"id":"t1","status":{}},"status_update":{"taskId":"t2"},"message":null,"artifactUpdate":"x"}}`,
	`{"result":{"task":{"t\u0061skId":"t1"}}}`,
	`{"result":{"tas\u212aId":"t1"}}`,
	`{"result":{"taskİd":"t1"}}`,
	`{"res\u0075lt":{"taskId":"t1"}}`,
	`{"résult":{"taskId":"t1"}}`,
	`{"error":{"code":1,"message":"x"}}`,
	`{"result":"text"}`,
	`{"result":null}`,
	`null`,
	`[{"result":{"taskId":"t1"}}]`,
	`"text"`,
	` { "result" : { "taskId" : "t1" , "kind" : "task" , "id" : "t2" } } `,
	"{\"result\":{\"taskId\":\"t\xff1\"}}",
}

func TestAnswerTaskIDsMatchesDecoding(t *testing.T) {
	for _, answer := range taskAnswerSeeds {
		checkAnswerTaskIDs(t, []byte(answer))
	}
}

// checkAnswerTaskIDs compares the fast path with decoding on an answer
// the answer check accepts (as the chain gives only those to a
// processor): the codec's checks, names unique at every depth.
func checkAnswerTaskIDs(t *testing.T, answer []byte) {
	t.Helper()
	strict, err := jsonrpc.NewStrict(jsonrpc.MaxDepthCeiling, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The fast path walks the answer itself, or through the layout the
	// check recorded of it.
	lay := new(jsonrpc.Layout)
	if _, err := strict.CheckLayout(answer, lay); err != nil {
		return
	}
	want, wantErr := decodedAnswerTasks(answer)
	slices.Sort(want)
	for _, l := range []*jsonrpc.Layout{nil, lay} {
		got, err := answerTaskIDs(answer, l)
		slices.Sort(got)
		if !errors.Is(err, wantErr) || !slices.Equal(got, want) {
			t.Errorf("answerTaskIDs(%s, layout %v) = %q, %v; decoding finds %q, %v", answer, l != nil, got, err, want, wantErr)
		}
	}
}

// FuzzAnswerTaskIDs: on any answer the check accepts, the fast path
// finds exactly the tasks that decoding the answer finds.
func FuzzAnswerTaskIDs(f *testing.F) {
	for _, s := range taskAnswerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		if !json.Valid([]byte(answer)) {
			return
		}
		checkAnswerTaskIDs(t, []byte(answer))
	})
}
