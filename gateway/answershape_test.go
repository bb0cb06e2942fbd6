package gateway_test

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// errorData is an answer's error.data as the tests read it, whichever
// generation's shape it came in: capgate's object (v0.3), or A2A v1.0's
// list of typed details, read as the metadata of its ErrorInfo, where
// capgate carries the same members (a value that is not a string as its
// JSON text).
type errorData map[string]any

// UnmarshalJSON implements json.Unmarshaler.
func (d *errorData) UnmarshalJSON(b []byte) error {
	var obj map[string]any
	if json.Unmarshal(b, &obj) == nil {
		*d = obj
		return nil
	}
	var details []jsonrpc.ErrorInfo
	if err := json.Unmarshal(b, &details); err != nil {
		return err
	}
	for _, info := range details {
		if info.Type == jsonrpc.TypeErrorInfo {
			*d = errorData{}
			for k, v := range info.Metadata {
				(*d)[k] = v
			}
			return nil
		}
	}
	return errors.New("error.data holds no ErrorInfo")
}

// oneEvent is the data of an answer sent as a stream of one event, as the
// gateway sends the refusal of a call whose caller asked for a stream;
// any other answer is returned as it is.
func oneEvent(b []byte) []byte {
	if data, ok := bytes.CutPrefix(b, []byte("data: ")); ok {
		return bytes.TrimSuffix(data, []byte("\n\n"))
	}
	return b
}
