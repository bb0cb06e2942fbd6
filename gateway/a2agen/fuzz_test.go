package a2agen_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/capgate/capgate/gateway/a2agen"
)

// fuzzMethods are the methods the fuzz targets pick from.
var fuzzMethods = []string{"SendMessage", "SendStreamingMessage", "GetTask", "CancelTask", "SubscribeToTask",
	"CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig",
	"ListTaskPushNotificationConfigs", "ListTasks"}

// translated reports whether a translation succeeded, failing t on an
// error that is neither ErrUntranslatable nor ErrMalformed.
func translated(t *testing.T, err error) bool {
	t.Helper()
	if err != nil && !errors.Is(err, a2agen.ErrUntranslatable) && !errors.Is(err, a2agen.ErrMalformed) {
		t.Fatalf("unclassified error: %v", err)
	}
	return err == nil
}

// mustBeObject fails t when translated params are not a JSON object.
func mustBeObject(t *testing.T, out []byte) {
	t.Helper()
	var obj map[string]json.RawMessage
	if json.Unmarshal(out, &obj) != nil {
		t.Fatalf("translated params are not an object: %s", out)
	}
}

// seeds adds every golden input's params or response to f.
func seeds(f *testing.F, member string) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, in := range files {
		raw, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		var c map[string]json.RawMessage
		if json.Unmarshal(raw, &c) == nil && c[member] != nil {
			f.Add(uint8(0), []byte(c[member]))
		}
	}
}

// FuzzRequest checks that any params either translate into a JSON object
// or fail with ErrUntranslatable or ErrMalformed, never a panic.
func FuzzRequest(f *testing.F) {
	seeds(f, "params")
	f.Add(uint8(2), []byte(`{"id":"t","historyLength":1e99}`))
	f.Fuzz(func(t *testing.T, m uint8, params []byte) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		_, out, err := a2agen.Request(method, params, "capabilities")
		if !translated(t, err) {
			return
		}
		mustBeObject(t, out)
	})
}

// FuzzResponse checks that any response either translates into a JSON
// object or fails with ErrUntranslatable or ErrMalformed, and that a
// translated result is itself translated the same way twice.
func FuzzResponse(f *testing.F) {
	seeds(f, "response")
	f.Add(uint8(0), []byte(`{"result":{"kind":"task","id":"t","status":{"state":"working","message":null}}}`))
	f.Fuzz(func(t *testing.T, m uint8, resp []byte) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		out, err := a2agen.Response(method, resp)
		if !translated(t, err) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("translated response is not JSON: %s", out)
		}
		// v1.0 has no "kind": a translated result never carries v0.3's.
		var env struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if json.Unmarshal(out, &env) == nil {
			if _, ok := env.Result["kind"]; ok {
				t.Fatalf("a translated result keeps v0.3's kind: %s", out)
			}
		}
	})
}
