package documents_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
)

func TestRecorderRecordsWhatArrived(t *testing.T) {
	a, srv := newServer(t)
	h := http.Header{
		"A2a-Capability-Id":        {"cap_7f3a9b"},
		"A2a-Capability-Principal": {"user:alice@example.com"},
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":{"skill":"list_documents","arguments":{"resourceIds":[]}}}`
	post(t, srv.URL+"/a2a/documents", body, h)

	reqs := a.Recorder().Requests()
	if len(reqs) != 1 {
		t.Fatalf("recorded %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/a2a/documents" || r.RPCMethod != "a2a/skill/invoke" ||
		string(r.Body) != body || r.Header.Get("A2A-Capability-Id") != "cap_7f3a9b" || !r.Time.Equal(fixedNow()) {
		t.Errorf("recorded %+v", r)
	}
	// Requests returns copies: changing one never changes the recorder.
	reqs[0].Header.Set("A2A-Capability-Id", "forged")
	reqs[0].Body[0] = 'X'
	again := a.Recorder().Requests()[0]
	if again.Header.Get("A2A-Capability-Id") != "cap_7f3a9b" || again.Body[0] != '{' {
		t.Error("Requests did not return copies")
	}
	a.Recorder().Reset()
	if a.Recorder().Count() != 0 || len(a.Recorder().Requests()) != 0 {
		t.Error("Reset did not clear the recorder")
	}
}

func TestRecorderLimitAndTruncation(t *testing.T) {
	rec := &documents.Recorder{Limit: 3}
	for i := range 5 {
		rec.Record(documents.RecordedRequest{RPCMethod: fmt.Sprint("m", i)})
	}
	reqs := rec.Requests()
	if rec.Count() != 5 || len(reqs) != 3 || reqs[0].RPCMethod != "m2" || reqs[2].RPCMethod != "m4" {
		t.Errorf("count %d, retained %+v; want 5 counted, m2..m4 retained", rec.Count(), reqs)
	}
	if rec.CountRPC("m3") != 1 || rec.CountRPC("m0") != 0 {
		t.Error("CountRPC counts retained requests by method")
	}
	big := []byte(strings.Repeat("x", documents.MaxRecordedBody+10))
	rec.Record(documents.RecordedRequest{Body: big})
	last := rec.Requests()[2]
	if len(last.Body) != documents.MaxRecordedBody || !last.BodyTruncated {
		t.Errorf("body len %d truncated %v", len(last.Body), last.BodyTruncated)
	}
}

func TestRecorderConcurrent(t *testing.T) {
	var rec documents.Recorder // the zero value is ready to use
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				rec.Record(documents.RecordedRequest{RPCMethod: "m", Header: http.Header{"X": {fmt.Sprint(g, i)}}})
				_ = rec.Requests()
				_ = rec.Count()
			}
		}()
	}
	wg.Wait()
	if rec.Count() != 400 {
		t.Errorf("Count = %d, want 400", rec.Count())
	}
}

func TestRecorderSharedAcrossConcurrentRequests(t *testing.T) {
	a, srv := newServer(t)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call(t, srv.URL, documents.MethodResourcesResolve, map[string]any{}, nil)
		}()
	}
	wg.Wait()
	if got := a.Recorder().CountRPC(documents.MethodResourcesResolve); got != 10 {
		t.Errorf("CountRPC = %d, want 10", got)
	}
}
