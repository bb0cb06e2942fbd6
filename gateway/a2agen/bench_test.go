package a2agen_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/capgate/capgate/gateway/a2agen"
)

// BenchmarkTranslate measures the translation of a typical SendMessage
// (testdata/request_send.json) and of a task answer
// (testdata/answer_send_task.json).
func BenchmarkTranslate(b *testing.B) {
	var req, ans struct {
		Params   json.RawMessage `json:"params"`
		Response json.RawMessage `json:"response"`
	}
	for path, v := range map[string]any{"testdata/request_send.json": &req, "testdata/answer_send_task.json": &ans} {
		raw, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(raw, v) != nil {
			b.Fatal(path, err)
		}
	}
	b.Run("request", func(b *testing.B) {
		b.SetBytes(int64(len(req.Params)))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := a2agen.Request("SendMessage", req.Params, extensionMembers...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("answer", func(b *testing.B) {
		b.SetBytes(int64(len(ans.Response)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a2agen.Response("SendMessage", ans.Response); err != nil {
				b.Fatal(err)
			}
		}
	})
}
