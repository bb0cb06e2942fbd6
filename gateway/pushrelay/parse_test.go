package pushrelay_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/capgate/capgate/gateway/pushrelay"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    pushrelay.Config
		wantErr error
	}{
		{"v0.3", `{"id":"c1","url":"https://h.example/x","token":"t","authentication":{"schemes":["Bearer"],"credentials":"s"}}`,
			pushrelay.Config{ID: "c1", Target: pushrelay.Target{URL: "https://h.example/x", Token: "t",
				Auth: &pushrelay.Auth{Schemes: []string{"Bearer"}, Credentials: "s"}}}, nil},
		{"v1.0", `{"taskId":"t1","url":"https://h.example/x","authentication":{"scheme":"Basic","credentials":"s"}}`,
			pushrelay.Config{Target: pushrelay.Target{URL: "https://h.example/x",
				Auth: &pushrelay.Auth{Schemes: []string{"Basic"}, Credentials: "s"}}}, nil},
		{"url only", `{"url":"https://h.example/x"}`, pushrelay.Config{Target: pushrelay.Target{URL: "https://h.example/x"}}, nil},
		{"no url", `{"token":"t"}`, pushrelay.Config{}, pushrelay.ErrConfig},
		{"case variant", `{"URL":"https://h.example/x"}`, pushrelay.Config{}, pushrelay.ErrConfig},
		{"unknown member", `{"url":"https://h.example/x","callback":"https://other.example"}`, pushrelay.Config{}, pushrelay.ErrConfig},
		{"unknown auth member", `{"url":"https://h.example/x","authentication":{"schemes":[],"Credentials":"s"}}`, pushrelay.Config{}, pushrelay.ErrConfig},
		{"url not a string", `{"url":7}`, pushrelay.Config{}, pushrelay.ErrConfig},
		{"not an object", `["https://h.example/x"]`, pushrelay.Config{}, pushrelay.ErrConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pushrelay.ParseConfig(json.RawMessage(tc.raw))
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Errorf("got %s, want %s", g, w)
			}
		})
	}
}

func TestTaskOf(t *testing.T) {
	tests := []struct {
		name, body, want string
		ok               bool
	}{
		{"v0.3 task", `{"kind":"task","id":"t1","contextId":"c"}`, "t1", true},
		{"v0.3 status update", `{"kind":"status-update","taskId":"t1","contextId":"c"}`, "t1", true},
		{"v1.0 task", `{"task":{"id":"t1","contextId":"c"}}`, "t1", true},
		{"v1.0 status update", `{"statusUpdate":{"taskId":"t1","contextId":"c"}}`, "t1", true},
		{"v1.0 wrapping twice", `{"task":{"task":{"id":"t1"}}}`, "", false},
		{"v1.0 with another member", `{"task":{"id":"t1"},"statusUpdate":{"taskId":"t2"}}`, "", false},
		{"task naming two ids", `{"kind":"task","id":"t1","taskId":"t2"}`, "", false},
		{"no task", `{"kind":"task"}`, "", false},
		{"id not a string", `{"kind":"task","id":1}`, "", false},
		{"not an object", `"t1"`, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := pushrelay.TaskOf([]byte(tc.body))
			if got != tc.want || ok != tc.ok {
				t.Errorf("TaskOf = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzParseConfig: any input is read or refused, never a panic, and what
// is read has a URL.
func FuzzParseConfig(f *testing.F) {
	f.Add(`{"url":"https://h.example/x","authentication":{"schemes":["Bearer"],"credentials":"s"}}`)
	f.Add(`{"url":"https://h.example/x","authentication":{"scheme":"Basic"},"taskId":"t"}`)
	f.Add(`{"url":null}`)
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := pushrelay.ParseConfig(json.RawMessage(raw))
		if err == nil && c.Target.URL == "" {
			t.Errorf("read a config without a url from %q", raw)
		}
	})
}

// FuzzTaskOf: any pushed body names one task or none, never a panic.
func FuzzTaskOf(f *testing.F) {
	f.Add(`{"kind":"task","id":"t1"}`)
	f.Add(`{"statusUpdate":{"taskId":"t1"}}`)
	f.Add(`{"task":{"task":{"id":"x"}}}`)
	f.Fuzz(func(t *testing.T, body string) {
		if task, ok := pushrelay.TaskOf([]byte(body)); ok && task == "" {
			t.Errorf("an empty task from %q", body)
		}
	})
}
