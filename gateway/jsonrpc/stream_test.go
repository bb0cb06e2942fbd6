package jsonrpc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWriteEventStream(t *testing.T) {
	tests := []struct {
		name string
		resp Response
		want string
	}{
		{
			name: "one error event",
			resp: NewError(json.RawMessage(`"s1"`), NewCodeError(CodeCapabilityRequired, "")),
			want: `data: {"jsonrpc":"2.0","id":"s1","error":{"code":-32040,"message":"Capability required","data":{"reason":"capability_required"}}}` + "\n\n",
		},
		{
			name: "a result that cannot be marshalled is an internal error",
			resp: NewResult(json.RawMessage(`1`), func() {}),
			want: `data: {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":{"reason":"internal_error"}}}` + "\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			if err := WriteEventStream(rec, tt.resp); err != nil {
				t.Fatal(err)
			}
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/event-stream" {
				t.Errorf("status %d, Content-Type %q; want 200 text/event-stream", rec.Code, rec.Header().Get("Content-Type"))
			}
			if got := rec.Body.String(); got != tt.want {
				t.Errorf("body\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
