package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"testing"

	"github.com/capgate/capgate/gateway/platform"
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

func checkAnswerTaskIDs(t *testing.T, answer []byte) {
	t.Helper()
	want, wantErr := decodedAnswerTasks(answer)
	got, err := answerTaskIDs(answer)
	slices.Sort(want)
	slices.Sort(got)
	if !errors.Is(err, wantErr) || !slices.Equal(got, want) {
		t.Errorf("answerTaskIDs(%s) = %q, %v; decoding finds %q, %v", answer, got, err, want, wantErr)
	}
}

// FuzzAnswerTaskIDs: on any valid JSON, the fast path finds exactly the
// tasks that decoding the answer finds.
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

func TestMapAnswer(t *testing.T) {
	_, _, redact := testIDs([][2]string{{"notes/team-standup", "rh_1"}}, []string{"notes/secret"}, false)
	_, _, refuse := testIDs([][2]string{{"notes/team-standup", "rh_1"}}, []string{"notes/forbidden"}, true)
	tests := []struct {
		name, in, want string
		wantErr        error
	}{
		{"nothing to map keeps the text", `{"b": "x",  "a": 2}`, `{"b": "x",  "a": 2}`, nil},
		{"values mapped, order and spacing kept", `{"b": "notes/team-standup", "a": ["notes/secret", 1.50]}`,
			`{"b": "rh_1", "a": ["[resource]", 1.50]}`, nil},
		{"keys mapped too", `{"notes/team-standup":"notes/team-standup"}`, `{"rh_1":"rh_1"}`, nil},
		{"escaped id", `["notes\/team-standup","notes\u002fsecret"]`, `["rh_1","[resource]"]`, nil},
		{"every duplicate member", `{"a":"notes/secret","a":"x"}`, `{"a":"[resource]","a":"x"}`, nil},
		{"glued to a longer word", `"notes/team-standup-2"`, `"rh_1-2"`, nil},
		{"re-encoded as json.Marshal does", `"<notes/team-standup>"`, `"\u003crh_1\u003e"`, nil},
		{"refused", `{"a":"see notes/forbidden"}`, "", errUnmappedID},
		{"refused in a duplicate", `{"a":"notes/forbidden","a":"x"}`, "", errUnmappedID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := redact
			if tt.wantErr != nil {
				ids = refuse
			}
			got, err := mapAnswer(json.RawMessage(tt.in), ids)
			if !errors.Is(err, tt.wantErr) || err == nil && string(got) != tt.want {
				t.Errorf("mapAnswer(%s) = %s, %v; want %s, %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// FuzzMapAnswer: on any valid JSON, mapping in place gives the same
// value as decoding, mapping and re-encoding (mapStrings), refuses
// whenever that refuses, and leaves the text as it is whenever the
// fast path (mentionsIDs) says there is nothing to map.
func FuzzMapAnswer(f *testing.F) {
	f.Add(`{"result":{"id":"notes/a","text":"notes/a and notes/b"}}`)
	f.Add(`{"result":"notes\/a"}`)
	f.Add(`["notes\u002fa",{"x":"notes/ab notes/a-","notes/a":"notes/c"}]`)
	f.Add(`{"a" : [ "x" , "notes/b" ] , "b" : 1e3 }`)
	a, scope, ids := testIDs([][2]string{{"notes/a", "rh_a"}, {"notes/b", "rh_b"}}, []string{"notes/c"}, true)
	f.Fuzz(func(t *testing.T, answer string) {
		raw := json.RawMessage(answer)
		if !json.Valid(raw) {
			return
		}
		got, err := mapAnswer(raw, ids)
		want, wantErr := mapStrings(raw, func(s string) (string, error) {
			out, refused := ids.Replace(s)
			if refused {
				return "", errUnmappedID
			}
			return out, nil
		})
		switch {
		case errors.Is(wantErr, errKeyCollision):
			return // mapAnswer keeps both members; neither names an id
		case wantErr != nil && !errors.Is(err, errUnmappedID):
			t.Fatalf("mapStrings refused (%v), mapAnswer gave %s, %v", wantErr, got, err)
		case err != nil:
			return // a refusal in a duplicate member that decoding drops
		case !json.Valid(got):
			t.Fatalf("not JSON: %s", got)
		case !reflect.DeepEqual(decodeAny(t, got), decodeAny(t, want)):
			t.Fatalf("mapAnswer %s, mapStrings %s", got, want)
		}
		if !mentionsIDs(raw, a, scope) && !bytes.Equal(got, raw) {
			t.Fatalf("mentionsIDs missed an id in %s", raw)
		}
	})
}

func decodeAny(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// FuzzHasLooseSpace: on any valid JSON, hasLooseSpace says exactly
// whether json.Compact changes it.
func FuzzHasLooseSpace(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a": 1}`, `"a b"`, "[1,\n2]", `"\" "`, `{"a":"\\"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if changed := buf.String() != s; hasLooseSpace([]byte(s)) != changed {
			t.Errorf("hasLooseSpace(%q) = %v, Compact changes it: %v", s, !changed, changed)
		}
	})
}

// TestChainRefusesBrokenProcessorOutput: what a processor changes into
// something that is not JSON never reaches the next processor or the
// caller.
func TestChainRefusesBrokenProcessorOutput(t *testing.T) {
	var seen []string
	record := func(_ context.Context, _ *call, resp json.RawMessage) (json.RawMessage, error) {
		seen = append(seen, string(resp))
		return resp, nil
	}
	strict, err := newAnswerStrict()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		out  string
		want string
	}{
		{"not JSON", `{"result":`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":{"reason":"internal_error"}}}`},
		// id mapping turning two names into one placeholder
		{"duplicate names", `{"id":1,"result":{"m":{"[resource]":"x","[resource]":"y"}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the agent's answer does not pass the gateway's JSON checks","data":{"detail":"duplicate_key","reason":"malformed_answer"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			broken := func(context.Context, *call, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(tt.out), nil
			}
			f := &Front{answers: []answerProcessor{record, broken, record}, answerStrict: strict,
				deps: Deps{Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler)}}}
			got, err := processUnary(context.Background(), f.processChain(&call{}), strictOnly, json.RawMessage("7"), []byte(`{"id":1,"result":{}}`))
			if err != nil || string(got) != tt.want || len(seen) != 1 {
				t.Errorf("got %s, %v (processors saw %q); want %s", got, err, seen, tt.want)
			}
		})
	}
}
