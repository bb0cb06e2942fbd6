package jsonrpc

import (
	"bytes"
	"encoding/json"
	"net/http"
)

var _ json.Marshaler = Response{}

// Response is one JSON-RPC 2.0 response object. Exactly one of a result and
// an error is sent: Error when it is non-nil, Result otherwise (a nil Result
// is sent as "result": null).
type Response struct {
	// JSONRPC is ignored when marshalling; "2.0" is always sent.
	JSONRPC string
	// ID echoes the request's raw id. Nil, or anything that is not a
	// string, a number or null, is sent as null.
	ID json.RawMessage
	// Result is any value encoding/json can marshal; a json.RawMessage is
	// sent as it is (compacted).
	Result any
	// Error, when non-nil, is sent instead of Result.
	Error *Error
}

// NewResult returns a success response to the request with the given id.
func NewResult(id json.RawMessage, result any) Response {
	return Response{JSONRPC: Version, ID: normalID(id), Result: result}
}

// NewError returns an error response to the request with the given id; use
// a nil id when the request's id could not be read. A nil e is sent as an
// internal error rather than as a response with neither result nor error.
func NewError(id json.RawMessage, e *Error) Response {
	if e == nil {
		e = NewCodeError(CodeInternal, "")
	}
	return Response{JSONRPC: Version, ID: normalID(id), Error: e}
}

type resultWire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type errorWire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *Error          `json:"error"`
}

// MarshalJSON encodes r as a JSON-RPC 2.0 response object.
func (r Response) MarshalJSON() ([]byte, error) {
	id := normalID(r.ID)
	if r.Error != nil {
		return json.Marshal(errorWire{Version, id, r.Error})
	}
	return json.Marshal(resultWire{Version, id, r.Result})
}

// normalID returns id when it is a string, a number or null, and nil (sent
// as null) otherwise.
func normalID(id json.RawMessage) json.RawMessage {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || !json.Valid(id) {
		return nil
	}
	switch b := id[0]; {
	case b == '"', b == '-', isDigit(b), string(id) == "null":
		return id
	}
	return nil
}

// WriteResponse writes one response as the whole HTTP response, with
// Content-Type application/json. When resp cannot be marshalled (its Result
// is not marshallable) an internal error with the same id is sent instead.
// The error is the one from writing to w.
func WriteResponse(w http.ResponseWriter, status int, resp Response) error {
	return write(w, status, marshalOne(resp))
}

// WriteBatch writes the responses to a batch as one JSON array. A batch
// whose elements were all notifications has no responses: then nothing is
// written but status 204 No Content, since JSON-RPC forbids an empty array.
// Each response that cannot be marshalled is replaced by an internal error
// with the same id.
func WriteBatch(w http.ResponseWriter, status int, resps []Response) error {
	if len(resps) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, r := range resps {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(marshalOne(r))
	}
	buf.WriteByte(']')
	return write(w, status, buf.Bytes())
}

func marshalOne(r Response) []byte {
	b, err := r.MarshalJSON()
	if err != nil {
		b, _ = NewError(r.ID, NewCodeError(CodeInternal, "")).MarshalJSON()
	}
	return b
}

func write(w http.ResponseWriter, status int, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}
