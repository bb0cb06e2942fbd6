package a2e

import "testing"

func BenchmarkDecodeLine(b *testing.B) {
	line := []byte(`{"a2e":"1.0","type":"tool/call/req","id":"8c1d2f7e-2b1a-4c55-9f0e-1d2c3b4a5f6e","ts":1716123456.789,"tool_name":"echo","arguments":{"text":"hello, world","n":3},"session_id":"s1","correlation_id":"k1","streaming":false,"timeout":30}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := DecodeLine(line, 0); err != nil {
			b.Fatal(err)
		}
	}
}
