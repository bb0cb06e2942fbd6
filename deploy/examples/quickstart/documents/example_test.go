package documents_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

// The gateway has verified the capability and replaced the handle with the
// real id; the agent answers with the document.
func ExampleNew() {
	agent, err := documents.New(documents.Options{
		BaseURL: "http://127.0.0.1:9101",
		Logger:  slog.New(slog.DiscardHandler),
		Now:     func() time.Time { return time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(agent.Handler())
	defer srv.Close()

	body := `{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":{
	  "skill":"retrieve_document","arguments":{"resourceId":"reports/q1-financial"},"capabilityId":"cap_7f3a9b"}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	req.Header.Set(documents.HeaderCapabilityOperations, "retrieve,search")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result documents.DocumentView `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		panic(err)
	}
	first, _, _ := strings.Cut(out.Result.Content, "\n")
	fmt.Println(out.Result.Title)
	fmt.Println(first)
	fmt.Println(agent.Recorder().CountRPC(documents.MethodSkillInvoke), "invocation reached the agent")
	// Output:
	// Q1 Financial Summary
	// Q1 2025 revenue grew 12% year over year to 4.2M USD while operating costs stayed flat.
	// 1 invocation reached the agent
}

func ExampleCanonicalMethod() {
	for _, m := range []string{"SendMessage", "message/send", "tasks/send", "GetTask", "a2a/skill/invoke"} {
		c, ok := documents.CanonicalMethod(m)
		fmt.Printf("%s -> %q %v\n", m, c, ok)
	}
	// Output:
	// SendMessage -> "message/send" true
	// message/send -> "message/send" true
	// tasks/send -> "message/send" true
	// GetTask -> "tasks/get" true
	// a2a/skill/invoke -> "" false
}

func ExampleAgent_Resolve() {
	agent, _ := documents.New(documents.Options{
		BaseURL: "http://127.0.0.1:9101", Logger: slog.New(slog.DiscardHandler), Now: time.Now,
	})
	for _, r := range agent.Resolve("reports", map[string]string{"quarter": "2025-Q1"}) {
		fmt.Println(r.ID, "-", r.DisplayName)
	}
	// Output:
	// reports/q1-financial - Q1 Financial Summary
	// reports/q1-sales - Q1 Sales Report
}

func ExampleRecorder() {
	var rec documents.Recorder
	rec.Record(documents.RecordedRequest{Method: "POST", Path: "/", RPCMethod: "a2a/skill/invoke"})
	fmt.Println(rec.Count(), rec.CountRPC("a2a/skill/invoke"))
	rec.Reset()
	fmt.Println(rec.Count())
	// Output:
	// 1 1
	// 0
}
