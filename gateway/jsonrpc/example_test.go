package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

func ExampleDecode() {
	body := []byte(`[
		{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{}}},
		{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"t1"}},
		{"jsonrpc":"2.0","id":2,"method":"GetTask","extra":true}
	]`)
	reqs, batch, err := jsonrpc.Decode(body, jsonrpc.DefaultLimits())
	if err != nil {
		fmt.Println("whole body rejected:", err)
		return
	}
	fmt.Println("batch:", batch)
	for _, r := range reqs {
		switch {
		case r.Err != nil:
			fmt.Printf("id %s: %v\n", r.ID, r.Err)
		case r.IsNotification():
			fmt.Printf("notification %s\n", r.Method)
		default:
			fmt.Printf("id %s: %s %s\n", r.ID, r.Method, r.Params)
		}
	}
	// Output:
	// batch: true
	// id 1: message/send {"message":{}}
	// notification tasks/get
	// id 2: jsonrpc: invalid request: unknown member "extra"
}

func ExampleDecode_caseVariant() {
	// encoding/json would merge these two into one struct field; the
	// upstream agent might read either. Decode rejects the whole body.
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke",` +
		`"params":{"arguments":{"resourceHandle":"rh_001","ResourceHandle":"rh_hr"}}}`)
	_, _, err := jsonrpc.Decode(body, jsonrpc.DefaultLimits())
	fmt.Println(errors.Is(err, jsonrpc.ErrCaseVariantKey), errors.Is(err, jsonrpc.ErrDuplicateKey))
	fmt.Println(jsonrpc.ErrorFor(err).Reason())
	// Output:
	// true true
	// duplicate_key
}

func ExampleErrorFor() {
	_, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0",`), jsonrpc.DefaultLimits())
	e := jsonrpc.ErrorFor(err)
	fmt.Println(e.Code, e.Message, e.Reason())
	// Output: -32700 Parse error parse_error
}

func ExampleNewCodeError() {
	e := jsonrpc.NewCodeError(jsonrpc.CodeHolderMismatch, "").WithData("capabilityId", "cap_7f3a9b")
	b, _ := json.Marshal(jsonrpc.NewError(json.RawMessage(`2`), e))
	fmt.Println(string(b))
	// Output: {"jsonrpc":"2.0","id":2,"error":{"code":-32046,"message":"Holder mismatch","data":{"capabilityId":"cap_7f3a9b","reason":"holder_mismatch"}}}
}

func ExampleMethodGeneration() {
	for _, m := range []string{"tasks/send", "message/send", "SendMessage", "tasks/resubscribe", "a2a/skill/invoke", "tasks/Get"} {
		canonical, known := jsonrpc.MethodGeneration(m)
		fmt.Printf("%s -> %q %v streaming=%v\n", m, canonical, known, jsonrpc.IsStreaming(m))
	}
	// Output:
	// tasks/send -> "SendMessage" true streaming=false
	// message/send -> "SendMessage" true streaming=false
	// SendMessage -> "SendMessage" true streaming=false
	// tasks/resubscribe -> "SubscribeToTask" true streaming=true
	// a2a/skill/invoke -> "a2a/skill/invoke" true streaming=false
	// tasks/Get -> "" false streaming=false
}

func ExampleUnmarshalParams() {
	var p struct {
		Skill        string `json:"skill"`
		CapabilityID string `json:"capabilityId"`
	}
	err := jsonrpc.UnmarshalParams(json.RawMessage(`{"skill":"retrieve_document","capabilityId":"cap_1"}`), &p)
	fmt.Println(p.Skill, p.CapabilityID, err)

	// encoding/json alone would accept "CapabilityId" for capabilityId.
	err = jsonrpc.UnmarshalParams(json.RawMessage(`{"skill":"x","CapabilityId":"cap_2"}`), &p)
	fmt.Println(err)
	// Output:
	// retrieve_document cap_1 <nil>
	// jsonrpc: invalid params: params.CapabilityId: must be spelled "capabilityId"
}

func ExampleWriteBatch() {
	rec := httptest.NewRecorder()
	_ = jsonrpc.WriteBatch(rec, http.StatusOK, []jsonrpc.Response{
		jsonrpc.NewResult(json.RawMessage(`1`), map[string]int{"n": 1}),
		jsonrpc.NewError(nil, jsonrpc.ErrorFor(jsonrpc.ErrInvalidRequest)),
	})
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	fmt.Println(rec.Body.String())
	// Output:
	// 200 application/json
	// [{"jsonrpc":"2.0","id":1,"result":{"n":1}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":{"detail":"jsonrpc: invalid request","reason":"invalid_request"}}}]
}

func ExampleReadBody() {
	lim := jsonrpc.DefaultLimits()
	lim.MaxBodyBytes = 64
	_, err := jsonrpc.ReadBody(strings.NewReader(strings.Repeat(" ", 65)), lim)
	fmt.Println(err)
	// Output: jsonrpc: body too large: more than 64 bytes
}

func ExampleWalkObject() {
	text := []byte(`{"jsonrpc":"2.0","id":7,"result":{"tasks":[{"id":"t1"},{"id":"t2"}]}}`)
	it, _ := jsonrpc.WalkObject(text)
	for m, ok := it.Next(); ok; m, ok = it.Next() {
		if string(m.Name) != "result" {
			continue
		}
		result, _ := jsonrpc.WalkObject(m.Value)
		for r, ok := result.Next(); ok; r, ok = result.Next() {
			tasks, _ := jsonrpc.WalkArray(r.Value)
			for task, ok := tasks.Next(); ok; task, ok = tasks.Next() {
				fmt.Printf("%s\n", task)
			}
		}
	}
	// Output:
	// {"id":"t1"}
	// {"id":"t2"}
}
