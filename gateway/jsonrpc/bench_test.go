package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// typicalInvoke is a typical a2a/skill/invoke request of about 400 bytes.
var typicalInvoke = []byte(`{"jsonrpc":"2.0","id":"req-8f14e45f-ceea-467f-a0e6-d0b8e1e4b0a2","method":"a2a/skill/invoke",` +
	`"params":{"skill":"retrieve_document","capabilityId":"cap_7f3a9b2c4d5e6f708192a3b4c5d6e7f8",` +
	`"arguments":{"resourceHandle":"rh_001","format":"markdown","maxLength":4000,"sections":["summary","figures"],` +
	`"options":{"includeMetadata":true,"language":"en"}},` +
	`"metadata":{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","purpose":"Summarize quarterly reports"}}}`)

func batch32() []byte {
	parts := make([]string, 32)
	for i := range parts {
		parts[i] = string(typicalInvoke)
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

func BenchmarkDecode(b *testing.B) {
	lim := DefaultLimits()
	for _, bc := range []struct {
		name string
		body []byte
	}{
		{"invoke", typicalInvoke},
		{"batch32", batch32()},
	} {
		d, err := NewDecoder(lim)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				reqs, _, err := Decode(bc.body, lim)
				if err != nil || reqs[0].Err != nil {
					b.Fatal(err, reqs[0].Err)
				}
			}
		})
		b.Run("Decoder/"+bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				reqs, _, err := d.Decode(bc.body)
				if err != nil || reqs[0].Err != nil {
					b.Fatal(err, reqs[0].Err)
				}
			}
		})
	}
}

// BenchmarkBaseline measures encoding/json on the same bodies, for scale:
// json.Valid alone, and decoding into a generic request struct.
func BenchmarkBaseline(b *testing.B) {
	b.Run("json.Valid/invoke", func(b *testing.B) {
		b.SetBytes(int64(len(typicalInvoke)))
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(typicalInvoke) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("json.Unmarshal/invoke", func(b *testing.B) {
		b.SetBytes(int64(len(typicalInvoke)))
		b.ReportAllocs()
		for b.Loop() {
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Params  json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(typicalInvoke, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeHostile measures a near-1 MiB object of 60k members, the
// shape that makes name checking most expensive.
func BenchmarkDecodeHostile(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","method":"x","params":` + wideObject(60000, "") + `}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Decode(body, DefaultLimits()); err != nil {
			b.Fatal(err)
		}
	}
}

// typicalAnswer is an agent's answer to a call: a completed task with an
// artifact, about 250 bytes.
var typicalAnswer = []byte(`{"jsonrpc":"2.0","id":2,"result":{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"completed"},` +
	`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"the summary of the quarter"}]}]}}`)

// BenchmarkStrict is Strict on an answer, with and without the names a
// reader reads, next to json.Valid on the same text.
func BenchmarkStrict(b *testing.B) {
	plain, _ := NewStrict(MaxDepthCeiling, nil)
	named, _ := NewStrict(MaxDepthCeiling, responseNames())
	for _, bc := range []struct {
		name  string
		check func([]byte) error
	}{
		{"json.Valid", func(t []byte) error {
			if !json.Valid(t) {
				return ErrParse
			}
			return nil
		}},
		{"plain", plain.Check},
		{"names", named.Check},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(typicalAnswer)))
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.check(typicalAnswer); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
