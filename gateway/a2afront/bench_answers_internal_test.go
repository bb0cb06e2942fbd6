package a2afront

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/answer"
)

// Answers the chain benchmarks run through: what agents typically send
// back to an invocation or a message.
const (
	// answerMessage is the load command's upstream answer: a message that
	// names no task and no id.
	answerMessage = `{"jsonrpc":"2.0","id":2,"result":{"kind":"message","messageId":"loadtest","role":"agent","parts":[{"kind":"text","text":"ok"}]}}`
	// answerTask is a completed task with an artifact: a task to claim,
	// no id to map.
	answerTask = `{"jsonrpc":"2.0","id":2,"result":{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"completed"},` +
		`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"the summary of the quarter"}]}]}}`
	// answerMentions names one of the capability's real ids, which becomes
	// the caller's handle.
	answerMentions = `{"jsonrpc":"2.0","id":2,"result":{"kind":"message","messageId":"m2","role":"agent",` +
		`"parts":[{"kind":"text","text":"opened reports/q1-financial"},{"kind":"data","data":{"id":"reports/q1-financial"}}]}}`
	// answerEscaped has an escape sequence, which no byte search can rule
	// out.
	answerEscaped = `{"jsonrpc":"2.0","id":2,"result":{"kind":"message","messageId":"m2","role":"agent","parts":[{"kind":"text","text":"line one\nline two"}]}}`
)

// largeAnswer is a message with a text of kib KiB, naming one of the
// capability's ids every 80 bytes when ids is set.
func largeAnswer(kib int, ids bool) string {
	filler := "the quick brown fox jumps over the lazy dog and then some words "
	if ids {
		filler = "the quick brown fox jumps over the lazy dog, see reports/q1-financial and more "
	}
	text := strings.Repeat(filler, (kib<<10)/len(filler)+1)[:kib<<10]
	return `{"jsonrpc":"2.0","id":2,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"` + text + `"}]}}`
}

// recordsAnswer is a completed task whose artifact is a data part listing
// records, kib KiB in all: many short strings, numbers and nested objects,
// the shape of a search or a listing. With ids, every record refers to one
// of the capability's ids.
func recordsAnswer(kib int, ids bool) string {
	var recs strings.Builder
	for i := 0; recs.Len() < kib<<10; i++ {
		if i > 0 {
			recs.WriteByte(',')
		}
		ref := fmt.Sprintf("doc-%05d", i)
		if ids {
			ref = "reports/q1-financial"
		}
		fmt.Fprintf(&recs, `{"id":"rec-%05d","title":"Quarterly note %d","score":0.%d,"ref":%q,"tags":["finance","q1"]}`, i, i, i%100, ref)
	}
	return `{"jsonrpc":"2.0","id":2,"result":{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"completed"},` +
		`"artifacts":[{"artifactId":"a1","parts":[{"kind":"data","data":{"records":[` + recs.String() + `]}}]}]}}`
}

// BenchmarkAnswerChain is the answer processors (task ownership, id
// mapping) on one unary answer of an allowed a2a/skill/invoke: what
// modifyAnswer does after reading the body.
func BenchmarkAnswerChain(b *testing.B) {
	fx := newFixture(b)
	ctx := context.Background()
	capb := fx.issue(b)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","capabilityId":%q,"arguments":{"resourceHandle":%q}}}`,
		capb.ID, capb.ResourceHandles[0].Handle)
	c := fx.call(b, aliceKey, "documents", body)
	if o := fx.front.decide(ctx, c); o.forward == nil {
		b.Fatalf("refused: %+v", o.resp)
	}
	for _, bc := range []struct{ name, answer string }{
		{"message", answerMessage},
		{"task", answerTask},
		{"mentions", answerMentions},
		{"escaped", answerEscaped},
		{"16KiB", largeAnswer(16, false)},
		{"16KiB+ids", largeAnswer(16, true)},
		{"256KiB", largeAnswer(256, false)},
		{"256KiB+ids", largeAnswer(256, true)},
		{"256KiB-records", recordsAnswer(256, false)},
		{"256KiB-records+ids", recordsAnswer(256, true)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ac := answer.Call[*call]{Value: c, ID: c.req.ID}
			body := []byte(bc.answer)
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				out, err := fx.front.answers.Unary(ctx, ac, body)
				if err != nil || len(out) == 0 {
					b.Fatalf("%s: %v", out, err)
				}
			}
		})
	}
}

// BenchmarkAnswerChainGated is the chain on the answer of a gated
// message/send: a task whose status and artifacts echo catalog ids, one
// of them outside the capability.
func BenchmarkAnswerChainGated(b *testing.B) {
	fx := newGatedFixture(b)
	ctx := context.Background()
	caps, e := fx.request(b, aliceKey, "notes", `["notes:read"]`, `{"collection":"team"}`)
	if e != nil {
		b.Fatal(e)
	}
	c := fx.call(b, aliceKey, "notes", sendBody("message/send", "hello", `{"capabilityId":"`+caps[0].ID+`"}`))
	if o := fx.front.decide(ctx, c); o.forward == nil {
		b.Fatalf("refused: %+v", o.resp)
	}
	body := []byte(`{"jsonrpc":"2.0","id":7,"result":` + echoTask(nil) + `}`)
	ac := answer.Call[*call]{Value: c, ID: c.req.ID}
	b.ReportAllocs()
	for b.Loop() {
		out, err := fx.front.answers.Unary(ctx, ac, body)
		if err != nil || len(out) == 0 {
			b.Fatalf("%s: %v", out, err)
		}
	}
}
