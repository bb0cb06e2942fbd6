package documents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
)

// NormalizeSendParams rewrites the params of a send method (message/send,
// message/stream and their other spellings) into the v0.3 shape that
// a2asrv parses, so that v1.0 and v0.1 callers are understood:
//
//   - a missing message.messageId is generated;
//   - v1.0 roles "ROLE_USER"/"ROLE_AGENT" become "user"/"agent";
//   - a part without "kind" gets one, from v0.1 "type" or by its members
//     (v1.0 {"text"}, {"data"}, {"url"}/{"raw"} file parts);
//   - v0.1 params.sessionId becomes message.contextId when that is empty.
//
// Members it does not know (params.capabilities, params.attenuations, …)
// are kept untouched. Params that are not a JSON object, or whose message
// is not an object, are returned unchanged so that a2asrv reports the
// error in its own words; invalid JSON is ErrInvalidParams.
func NormalizeSendParams(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return raw, nil
	}
	var params map[string]any
	if err := decodeNumbers(raw, &params); err != nil {
		if _, isObject := firstByte(raw); !isObject {
			return raw, nil
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidParams, err)
	}
	msg, ok := params["message"].(map[string]any)
	if !ok {
		return raw, nil
	}
	normalizeMessage(msg)
	if sid, ok := params["sessionId"].(string); ok && sid != "" {
		if cid, _ := msg["contextId"].(string); cid == "" {
			msg["contextId"] = sid
		}
	}
	out, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidParams, err)
	}
	return out, nil
}

func normalizeMessage(msg map[string]any) {
	if id, _ := msg["messageId"].(string); id == "" {
		msg["messageId"] = a2a.NewMessageID()
	}
	if role, ok := msg["role"].(string); ok {
		switch strings.ToUpper(role) {
		case "ROLE_USER":
			msg["role"] = string(a2a.MessageRoleUser)
		case "ROLE_AGENT":
			msg["role"] = string(a2a.MessageRoleAgent)
		}
	}
	parts, ok := msg["parts"].([]any)
	if !ok {
		return
	}
	for i, p := range parts {
		if part, ok := p.(map[string]any); ok {
			parts[i] = normalizePart(part)
		}
	}
}

func normalizePart(part map[string]any) map[string]any {
	if _, ok := part["kind"]; ok {
		return part
	}
	if t, ok := part["type"].(string); ok {
		delete(part, "type")
		part["kind"] = t
		return part
	}
	switch {
	case part["text"] != nil:
		part["kind"] = "text"
	case part["data"] != nil:
		part["kind"] = "data"
		if _, isObject := part["data"].(map[string]any); !isObject {
			part["data"] = map[string]any{"value": part["data"]}
		}
	case part["file"] != nil:
		part["kind"] = "file"
	case part["url"] != nil || part["raw"] != nil:
		return v1FilePart(part)
	}
	return part
}

// v1FilePart turns a v1.0 file part ({"url"|"raw", "mediaType",
// "filename"}) into a v0.3 one ({"kind":"file","file":{…}}).
func v1FilePart(part map[string]any) map[string]any {
	file := map[string]any{}
	if u, ok := part["url"]; ok {
		file["uri"] = u
	}
	if r, ok := part["raw"]; ok {
		file["bytes"] = r
	}
	if mt, ok := part["mediaType"]; ok {
		file["mimeType"] = mt
	}
	if fn, ok := part["filename"]; ok {
		file["name"] = fn
	}
	out := map[string]any{"kind": "file", "file": file}
	if md, ok := part["metadata"]; ok {
		out["metadata"] = md
	}
	return out
}

func decodeNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after JSON value")
	}
	return nil
}

// firstByte returns the first non-space byte of raw and whether it opens
// a JSON object.
func firstByte(raw []byte) (byte, bool) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return 0, false
	}
	return t[0], t[0] == '{'
}
