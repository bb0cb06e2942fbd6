package summarizer_test

import "testing"

// BenchmarkDelegatedSend measures a delegated message/send that retrieves
// two documents through a loopback fake gateway.
func BenchmarkDelegatedSend(b *testing.B) {
	gw := newFakeGateway(b)
	_, srv := newAgent(b, gw.srv.URL)
	params := sendIn("message/send", "go", []any{delegated("cap_1", "tok", "rh_001", "rh_002")})
	b.ReportAllocs()
	for b.Loop() {
		if resp := call(b, srv.URL, "message/send", params, nil); resp.Error != nil {
			b.Fatal(resp.Error)
		}
	}
}
