package a2agen_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/capgate/capgate/gateway/a2agen"
)

// BenchmarkTranslate measures the translation of a typical send and of a
// task answer, each way: v1.0 to v0.3 (testdata/request_send.json,
// testdata/answer_send_task.json) and v0.3 to v1.0
// (testdata/request03_send.json, testdata/answer1_send_task.json).
func BenchmarkTranslate(b *testing.B) {
	var req, ans, req03, ans1 struct {
		Params   json.RawMessage `json:"params"`
		Response json.RawMessage `json:"response"`
	}
	for path, v := range map[string]any{"testdata/request_send.json": &req, "testdata/answer_send_task.json": &ans,
		"testdata/request03_send.json": &req03, "testdata/answer1_send_task.json": &ans1} {
		raw, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(raw, v) != nil {
			b.Fatal(path, err)
		}
	}
	requests := map[string]func() error{
		"request": func() error {
			_, _, err := a2agen.Request("SendMessage", req.Params, extensionMembers...)
			return err
		},
		"request_to_v1": func() error {
			_, _, err := a2agen.RequestTo1("message/send", req03.Params, extensionMembers...)
			return err
		},
		"answer": func() error {
			_, err := a2agen.Response("SendMessage", ans.Response)
			return err
		},
		"answer_to_v03": func() error {
			_, err := a2agen.ResponseTo03("message/send", ans1.Response)
			return err
		},
	}
	sizes := map[string]int{"request": len(req.Params), "request_to_v1": len(req03.Params),
		"answer": len(ans.Response), "answer_to_v03": len(ans1.Response)}
	for name, fn := range requests {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(sizes[name]))
			b.ReportAllocs()
			for b.Loop() {
				if err := fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
