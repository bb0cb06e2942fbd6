package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Answers are held to the rules calls are. Before any processor sees a
// response object the upstream sent (a unary answer, each element of an
// array answer, the data of each stream event), a jsonrpc.Strict checks
// it as Decode checks a caller's body: well-formed, valid UTF-8,
// no object at any depth repeating a member name or holding two that
// differ only in case. And where the processors find members by name
// (answerNames), a member spelled otherwise than the name read is
// refused, as UnmarshalParams refuses one in params. The processors read
// "result" as written, while a client may take "Result" for it, or the
// last of two "tasks" for a listing's tasks: an answer that two
// readers could read differently must not reach the caller, for a task,
// an id or a handle in it could pass the processors unseen. The one
// answer not checked so is the resolution hook's: the caller never sees
// it, and the gateway decodes it itself and re-checks every resource it
// names against the query (resolve.go).

// answerDepth bounds the nesting of an answer. An answer carries the
// agent's content, deeper than a caller's request may be, so the
// configured request limit does not apply; the codec's ceiling bounds
// the checker's recursion.
const answerDepth = jsonrpc.MaxDepthCeiling

// answerCheck checks one response object the upstream sent, before any
// processor sees it. It returns nil, ErrNotJSON for what is not JSON
// at all, or an error holding the *jsonrpc.Error the caller gets instead
// of the response; and, in the same pass, whether resp holds whitespace
// outside its strings (loose), which the caller does not get.
type answerCheck func(ctx context.Context, resp []byte) (loose bool, err error)

// reasonMalformedAnswer is data.reason of an answer refused by the check.
const reasonMalformedAnswer = "malformed_answer"

// answerNames returns where the answer processors find members by their
// exact spelling: a response's own members. Everything else they read
// (the members that name a task, the wrappers of a v1.0 result or stream
// event, a listing's tasks and totals) they find under case folding, as
// a case-insensitive client does, so a skill result's own "ID", "Status"
// or "Tasks" is content, not a misspelling.
func answerNames() *jsonrpc.Names {
	return jsonrpc.NewNames(map[string]*jsonrpc.Names{"jsonrpc": nil, "id": nil, "result": nil, "error": nil})
}

// newStrict returns the check of every answer: the codec's checks,
// within answerDepth, and the names of answerNames.
func newStrict() (*jsonrpc.Strict, error) {
	s, err := jsonrpc.NewStrict(answerDepth, answerNames())
	if err != nil {
		return nil, fmt.Errorf("answer: answer check: %w", err)
	}
	return s, nil
}

// checkAnswer is the check of answerCheck.
func checkAnswer(resp []byte, strict *jsonrpc.Strict) (loose bool, err error) {
	return checkAnswerInto(resp, strict, nil)
}

// checkAnswerInto is checkAnswer, which also records resp's layout into
// lay when given.
func checkAnswerInto(resp []byte, strict *jsonrpc.Strict, lay *jsonrpc.Layout) (loose bool, err error) {
	if lay != nil {
		loose, err = strict.CheckLayout(resp, lay)
	} else {
		loose, err = strict.CheckLoose(resp)
	}
	switch {
	case err == nil:
		return loose, nil
	case errors.Is(err, jsonrpc.ErrParse) && !errors.Is(err, jsonrpc.ErrInvalidUTF8) && !errors.Is(err, jsonrpc.ErrTooDeep):
		return false, ErrNotJSON
	}
	return false, fmt.Errorf("%w: %w", malformedAnswer(err), err)
}

// malformedAnswer is the refusal of an answer the check refused: an
// internal error, the agent's fault and not the caller's, whose detail
// says which rule it broke and nothing of what the answer held.
func malformedAnswer(err error) *jsonrpc.Error {
	detail := jsonrpc.ErrorFor(err).Reason()
	if errors.Is(err, jsonrpc.ErrMisspelledKey) {
		detail = "case_variant_key"
	}
	return &jsonrpc.Error{
		Code: jsonrpc.CodeInternal, Message: "the agent's answer does not pass the gateway's JSON checks",
		Data: map[string]any{"reason": reasonMalformedAnswer, "detail": detail},
	}
}

// check is the answer check of c's answers, which logs what it refuses:
// the caller is told only that the answer was malformed.
func (p *Pipeline[C]) check(c Call[C]) answerCheck {
	return func(ctx context.Context, resp []byte) (bool, error) {
		loose, err := checkAnswerInto(resp, p.strict, arenaOf(ctx).layout())
		if err != nil && !errors.Is(err, ErrNotJSON) {
			p.logger.WarnContext(ctx, "upstream answer refused", "target", c.Target, "error", err)
			return false, c.shaped(err)
		}
		return loose, err
	}
}

// refuseAnswer returns what the caller gets for a response the check
// refused: the refusal for id, or, for what is not JSON at all, the
// error that fails the hop.
func refuseAnswer(id json.RawMessage, err error) ([]byte, error) {
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		return nil, err
	}
	return marshalResponse(jsonrpc.NewError(id, e)), nil
}
