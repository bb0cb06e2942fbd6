package a2afront

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// Upstream cards of each generation, as the gateway reads them.
const (
	transCardV03  = `{"url":"http://up/","protocolVersion":"0.3.0"}`
	transCardV1   = `{"supportedInterfaces":[{"url":"http://up/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
	transCardBoth = `{"supportedInterfaces":[{"url":"http://up/","protocolBinding":"JSONRPC","protocolVersion":"1.0"},` +
		`{"url":"http://up/","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}`
)

func TestTranslationFor(t *testing.T) {
	tests := []struct {
		name, card, method, header string
		want                       translation
		wantOK                     bool
	}{
		{"v1.0 call to a v0.3 agent", transCardV03, "SendMessage", "1.0", translation{method: "message/send"}, true},
		{"v1.0 name without header to a v0.3 agent", transCardV03, "GetTask", "", translation{method: "tasks/get"}, true},
		{"v0.3 call to a v1.0 agent", transCardV1, "message/send", "", translation{method: "SendMessage", to1: true}, true},
		{"v0.3 call under 0.3.0 to a v1.0 agent", transCardV1, "tasks/resubscribe", "0.3.0", translation{method: "SubscribeToTask", to1: true}, true},
		{"v0.3 list to a v1.0 agent", transCardV1, "tasks/pushNotificationConfig/list", "0.3", translation{method: "ListTaskPushNotificationConfigs", to1: true}, true},
		{"v0.2 header to a v1.0 agent", transCardV1, "tasks/get", "0.2", translation{}, false},
		{"v0.1 name to a v1.0 agent", transCardV1, "tasks/send", "", translation{}, false},
		{"extension method to a v1.0 agent", transCardV1, "a2a/skill/invoke", "", translation{}, false},
		{"v1.0 call to a v1.0 agent", transCardV1, "SendMessage", "1.0", translation{}, false},
		{"v0.3 call to an agent of both", transCardBoth, "message/send", "", translation{}, false},
		{"v1.0 call to an agent of both", transCardBoth, "SendMessage", "1.0", translation{}, false},
		{"ListTasks to a v0.3 agent", transCardV03, "ListTasks", "1.0", translation{}, false},
		{"no card", "null", "message/send", "", translation{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var card map[string]any
			if err := json.Unmarshal([]byte(tt.card), &card); err != nil {
				t.Fatal(err)
			}
			got, ok := translationFor(card, tt.method, tt.header)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("translationFor() = %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestTranslateHeaders(t *testing.T) {
	tests := []struct {
		name       string
		to1        bool
		in         map[string]string
		version    string
		v1, v03ext []string
	}{
		{"to v0.3 copies v1.0's extensions", false, map[string]string{"A2A-Extensions": "e"}, "0.3", []string{"e"}, []string{"e"}},
		{"to v1.0 copies v0.3's extensions", true, map[string]string{"X-A2A-Extensions": "e"}, "1.0", []string{"e"}, []string{"e"}},
		{"to v1.0 keeps the caller's own", true, map[string]string{"X-A2A-Extensions": "a", "A2A-Extensions": "b"}, "1.0", []string{"b"}, []string{"a"}},
		{"nothing to copy", true, nil, "1.0", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.in {
				h.Set(k, v)
			}
			translateHeaders(h, tt.to1)
			if h.Get("A2A-Version") != tt.version {
				t.Errorf("A2A-Version %q, want %q", h.Get("A2A-Version"), tt.version)
			}
			if got := h.Values("A2A-Extensions"); !slices.Equal(got, tt.v1) {
				t.Errorf("A2A-Extensions %v, want %v", got, tt.v1)
			}
			if got := h.Values("X-A2A-Extensions"); !slices.Equal(got, tt.v03ext) {
				t.Errorf("X-A2A-Extensions %v, want %v", got, tt.v03ext)
			}
		})
	}
}
