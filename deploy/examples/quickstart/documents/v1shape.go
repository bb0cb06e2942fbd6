package documents

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// a2asrv answers in the v0.3 shapes: results discriminated by "kind",
// lower-case roles and task states, parts with "kind". A v1.0 caller
// expects the v1.0 shapes: SendMessage answers {"message":…} or
// {"task":…}, each streamed event is a StreamResponse ({"task"},
// {"message"}, {"statusUpdate"} or {"artifactUpdate"}), GetTask and
// CancelTask answer the task itself; roles are ROLE_USER/ROLE_AGENT, task
// states TASK_STATE_*, and parts carry their content member with no
// "kind". The front rewrites a2asrv's answer to a v1.0 method into those
// shapes; v0.3 and older methods keep a2asrv's answer as it is.

// v1Answer says how a v1.0 method's result is shaped: wrapped in a
// one-member object named by the payload's kind (SendMessage and the
// streams), or the task itself (GetTask, CancelTask).
func v1Answer(method string) (wrapped, ok bool) {
	switch method {
	case "SendMessage", "SendStreamingMessage", "SubscribeToTask":
		return true, true
	case "GetTask", "CancelTask":
		return false, true
	}
	return false, false
}

// v1Writer rewrites a2asrv's answer to a v1.0 method as it is written: a
// stream event by event (each "data:" line), any other answer once whole,
// in finish.
type v1Writer struct {
	http.ResponseWriter
	wrapped   bool
	streaming bool
	buf       bytes.Buffer
}

func newV1Writer(w http.ResponseWriter, wrapped bool) *v1Writer {
	return &v1Writer{ResponseWriter: w, wrapped: wrapped}
}

// WriteHeader implements http.ResponseWriter.
func (v *v1Writer) WriteHeader(code int) {
	v.streaming = strings.HasPrefix(v.Header().Get("Content-Type"), "text/event-stream")
	if !v.streaming {
		v.Header().Del("Content-Length")
	}
	v.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (v *v1Writer) Write(p []byte) (int, error) {
	v.buf.Write(p)
	if !v.streaming {
		return len(p), nil
	}
	for {
		i := bytes.IndexByte(v.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := v.buf.Next(i + 1)
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			line = append(append([]byte("data: "), v1Response(bytes.TrimSpace(data), v.wrapped)...), '\n')
		}
		if _, err := v.ResponseWriter.Write(line); err != nil {
			return 0, err
		}
	}
}

// Flush implements http.Flusher; a2asrv streams only to a flusher.
func (v *v1Writer) Flush() {
	if f, ok := v.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// finish writes what is left: the whole answer of a call that did not
// stream, rewritten.
func (v *v1Writer) finish() {
	rest := v.buf.Bytes()
	if !v.streaming && len(bytes.TrimSpace(rest)) > 0 {
		rest = append(v1Response(bytes.TrimSpace(rest), v.wrapped), '\n')
	}
	_, _ = v.ResponseWriter.Write(rest)
}

// v1Response rewrites the result of one JSON-RPC response into its v1.0
// shape. An error, or anything it cannot read, is returned as it is.
func v1Response(raw []byte, wrapped bool) []byte {
	var resp map[string]json.RawMessage
	if json.Unmarshal(raw, &resp) != nil || resp["result"] == nil {
		return raw
	}
	var result map[string]any
	if decodeNumbers(resp["result"], &result) != nil || result == nil {
		return raw
	}
	kind, _ := result["kind"].(string)
	out := v1Payload(result)
	var shaped any = out
	if wrapped {
		shaped = map[string]any{v1PayloadNames()[kind]: out}
	}
	b, err := json.Marshal(shaped)
	if err != nil || (wrapped && v1PayloadNames()[kind] == "") {
		return raw
	}
	resp["result"] = b
	if b, err = json.Marshal(resp); err != nil {
		return raw
	}
	return b
}

// v1PayloadNames names the StreamResponse and SendMessageResponse member
// of each v0.3 result kind.
func v1PayloadNames() map[string]string {
	return map[string]string{"message": "message", "task": "task", "status-update": "statusUpdate", "artifact-update": "artifactUpdate"}
}

// v1Payload rewrites one v0.3 message, task, status-update or
// artifact-update into its v1.0 shape.
func v1Payload(p map[string]any) map[string]any {
	switch p["kind"] {
	case "message":
		v1Message(p)
	case "task":
		v1Status(p["status"])
		eachObject(p["history"], v1Message)
		eachObject(p["artifacts"], func(a map[string]any) { eachObject(a["parts"], v1Part) })
	case "status-update":
		delete(p, "final")
		v1Status(p["status"])
	case "artifact-update":
		if a, ok := p["artifact"].(map[string]any); ok {
			eachObject(a["parts"], v1Part)
		}
	}
	delete(p, "kind")
	return p
}

func v1Message(m map[string]any) {
	delete(m, "kind")
	if role, ok := m["role"].(string); ok && !strings.HasPrefix(role, "ROLE_") {
		m["role"] = "ROLE_" + strings.ToUpper(role)
	}
	eachObject(m["parts"], v1Part)
}

func v1Status(s any) {
	status, ok := s.(map[string]any)
	if !ok {
		return
	}
	if state, ok := status["state"].(string); ok && !strings.HasPrefix(state, "TASK_STATE_") {
		if state == "unknown" {
			state = "unspecified"
		}
		status["state"] = "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(state, "-", "_"))
	}
	if m, ok := status["message"].(map[string]any); ok {
		v1Message(m)
	}
}

// v1Part turns a v0.3 part ({"kind":"text","text"}, {"kind":"data",
// "data"}, {"kind":"file","file":{uri|bytes, mimeType, name}}) into a
// v1.0 one ({"text"}, {"data"}, {"url"|"raw", "mediaType", "filename"}).
func v1Part(p map[string]any) {
	kind := p["kind"]
	delete(p, "kind")
	file, ok := p["file"].(map[string]any)
	if kind != "file" || !ok {
		return
	}
	delete(p, "file")
	for from, to := range map[string]string{"uri": "url", "bytes": "raw", "mimeType": "mediaType", "name": "filename"} {
		if v, ok := file[from]; ok {
			p[to] = v
		}
	}
}

// eachObject calls fn on each object of the list v.
func eachObject(v any, fn func(map[string]any)) {
	list, _ := v.([]any)
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			fn(m)
		}
	}
}
