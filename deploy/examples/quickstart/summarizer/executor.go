package summarizer

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// MaxHandles bounds how many documents one message makes the summarizer
// retrieve; further handles are listed as skipped.
const MaxHandles = 32

// executor answers a delegated message with one line per document, and
// any other message with its own text.
type executor struct {
	invoker *invoker
	// files reads the handles of files capabilities; nil when the agent
	// has no FilesURL.
	files   *fileReader
	logger  *slog.Logger
	timeout time.Duration
}

var _ a2asrv.AgentExecutor = (*executor)(nil)

// Execute implements a2asrv.AgentExecutor.
func (e *executor) Execute(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	caps := delegation(ctx)
	var parts []a2a.Part
	if len(caps) == 0 {
		parts = []a2a.Part{a2a.TextPart{Text: messageText(reqCtx.Message)}}
	} else {
		outcomes := e.summarize(ctx, caps)
		parts = []a2a.Part{
			a2a.TextPart{Text: FormatAnswer(outcomes)},
			a2a.DataPart{Data: map[string]any{"documents": plainJSON(outcomes)}},
		}
	}
	msg := a2a.NewMessage(a2a.MessageRoleAgent, parts...)
	msg.ContextID = reqCtx.ContextID
	if err := q.Write(ctx, msg); err != nil {
		return fmt.Errorf("summarizer: write answer: %w", err)
	}
	return nil
}

// Cancel implements a2asrv.AgentExecutor. Answers are produced in one
// step, so there is never a running task to stop.
func (e *executor) Cancel(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := a2a.NewStatusUpdateEvent(reqCtx, a2a.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// summarize retrieves every delegated handle, in order, one at a time.
func (e *executor) summarize(ctx context.Context, caps []Capability) []Outcome {
	var out []Outcome
	n := 0
	for _, c := range caps {
		for _, h := range c.ResourceHandles {
			n++
			if n > MaxHandles {
				out = append(out, Outcome{CapabilityID: c.ID, Handle: h.Handle, DisplayName: h.DisplayName, Error: "skipped: too many documents"})
				continue
			}
			out = append(out, e.retrieveOne(ctx, c, h))
		}
	}
	return out
}

func (e *executor) retrieveOne(ctx context.Context, c Capability, h ResourceHandle) Outcome {
	callCtx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	var o Outcome
	var err error
	switch {
	case !strings.HasPrefix(c.Grant, FilesGrantPrefix):
		o, err = e.invoker.retrieve(callCtx, c, h)
	case e.files != nil:
		o, err = e.files.read(callCtx, c, h)
	default:
		o = Outcome{CapabilityID: c.ID, Handle: h.Handle, DisplayName: h.DisplayName}
		err = fmt.Errorf("%w: no files endpoint is configured", ErrGatewayCall)
	}
	if err != nil {
		e.logger.WarnContext(ctx, "reading a delegated handle failed", "capability_id", c.ID, "handle", h.Handle, "err", err)
		o.Error = strings.TrimPrefix(err.Error(), ErrGatewayCall.Error()+": ")
		return o
	}
	if o.Refused {
		e.logger.InfoContext(ctx, "reading a delegated handle refused", "capability_id", c.ID, "handle", h.Handle, "reason", o.Reason)
	}
	return o
}

// FormatAnswer renders the answer text: a header line, then one line per
// document, in delegation order:
//
//   - <title>: <first line>            (retrieved)
//   - <name>: refused (<reason>)       (JSON-RPC error from the gateway)
//   - <name>: failed (<detail>)        (technical failure)
//
// <name> is the handle's displayName, or the handle when it has none.
func FormatAnswer(outcomes []Outcome) string {
	if len(outcomes) == 0 {
		return "No documents were delegated to me."
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Summaries of %d delegated document(s):", len(outcomes))
	for _, o := range outcomes {
		name := o.DisplayName
		if name == "" {
			name = o.Handle
		}
		switch {
		case o.Error != "":
			fmt.Fprintf(&sb, "\n- %s: failed (%s)", name, o.Error)
		case o.Refused:
			fmt.Fprintf(&sb, "\n- %s: refused (%s)", name, o.Reason)
		default:
			fmt.Fprintf(&sb, "\n- %s: %s", o.Title, o.FirstLine)
		}
	}
	return sb.String()
}

// messageText concatenates the text parts of msg.
func messageText(msg *a2a.Message) string {
	if msg == nil {
		return ""
	}
	var texts []string
	for _, p := range msg.Parts {
		if t, ok := p.(a2a.TextPart); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// plainJSON converts v to the map[string]any/[]any form a JSON decoder
// produces, which a2asrv's gob-based task store can copy.
func plainJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil
	}
	return out
}
