package a2afront

import "encoding/json"

// encodeJSON encodes a string or a list of strings, which always encode.
func encodeJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("a2a front: " + err.Error())
	}
	return b
}
