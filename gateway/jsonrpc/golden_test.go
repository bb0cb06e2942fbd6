package jsonrpc

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden files in testdata/")

// goldenSep separates the request body from the expected response in a
// testdata/decode/*.txt file.
const goldenSep = "\n---- response ----\n"

// TestDecodeGolden runs each testdata/decode/*.txt body through Decode and
// an echo dispatcher, and compares the HTTP response with the file's second
// half. Run with -update to rewrite the second halves.
func TestDecodeGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/decode/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			content, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			body, want, found := bytes.Cut(content, []byte(goldenSep))
			if !found {
				t.Fatalf("%s has no %q separator", file, strings.TrimSpace(goldenSep))
			}
			got := echoServe(body)
			if *update {
				out := append(append(body, goldenSep...), got...)
				if err := os.WriteFile(file, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if string(got) != string(want) {
				t.Errorf("response differs; got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// echoServe answers body as the gateway front would, with a dispatcher that
// echoes what it decoded, and renders the HTTP response as text.
func echoServe(body []byte) []byte {
	rec := httptest.NewRecorder()
	reqs, batch, err := Decode(body, Limits{MaxBodyBytes: 4096, MaxBatch: 4, MaxDepth: 8})
	switch {
	case err != nil:
		_ = WriteResponse(rec, http.StatusOK, NewError(nil, ErrorFor(err)))
	case !batch:
		if r := echo(reqs[0]); r != nil {
			_ = WriteResponse(rec, http.StatusOK, *r)
		} else {
			_ = WriteBatch(rec, http.StatusOK, nil)
		}
	default:
		var resps []Response
		for _, req := range reqs {
			if r := echo(req); r != nil {
				resps = append(resps, *r)
			}
		}
		_ = WriteBatch(rec, http.StatusOK, resps)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "%d %s\n", rec.Code, rec.Header().Get("Content-Type"))
	if rec.Body.Len() > 0 {
		_ = json.Indent(&out, rec.Body.Bytes(), "", "  ")
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// echo answers one element: an error for an invalid one, nothing for a
// notification, and otherwise what was decoded.
func echo(req Request) *Response {
	if req.Err != nil {
		r := NewError(req.ID, ErrorFor(req.Err))
		return &r
	}
	if req.IsNotification() {
		return nil
	}
	canonical, known := MethodGeneration(req.Method)
	r := NewResult(req.ID, map[string]any{
		"method":    req.Method,
		"canonical": canonical,
		"known":     known,
		"streaming": IsStreaming(req.Method),
		"params":    req.Params,
	})
	return &r
}

// TestResponseGolden pins the wire form of every error code this package
// defines, and of results.
func TestResponseGolden(t *testing.T) {
	codes := []int{
		CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternal,
		CodeCapabilityRequired, CodeCapabilityInvalid, CodeCapabilityExpired, CodeCapabilityRevoked,
		CodeOperationNotPermitted, CodeResourceNotPermitted, CodeHolderMismatch, CodeGrantDenied,
		CodeAttenuationNotPermitted, CodeRevocationUnavailable,
	}
	var resps []Response
	for i, code := range codes {
		resps = append(resps, NewError(json.RawMessage(fmt.Sprint(i)), NewCodeError(code, "")))
	}
	resps = append(resps,
		NewError(json.RawMessage(`"grant"`), NewCodeError(CodeGrantDenied, "deny rule matched").WithData("rule", "contractors-no-hr")),
		NewError(nil, nil),
		NewError(json.RawMessage(`{"not":"an id"}`), NewCodeError(CodeInvalidRequest, "")),
		NewResult(json.RawMessage(`"r1"`), nil),
		NewResult(json.RawMessage(`"r2"`), json.RawMessage(`{"capabilities": []}`)),
		NewResult(json.RawMessage(`3`), map[string]string{"html": "<b>&</b>"}),
		NewResult(json.RawMessage(`4`), func() {}),
	)
	rec := httptest.NewRecorder()
	if err := WriteBatch(rec, http.StatusOK, resps); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, rec.Body.Bytes(), "", "  "); err != nil {
		t.Fatalf("WriteBatch wrote invalid JSON: %v\n%s", err, rec.Body.Bytes())
	}
	got.WriteByte('\n')
	const file = "testdata/responses.golden"
	if *update {
		if err := os.WriteFile(file, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("responses differ; got:\n%s", got.Bytes())
	}
}
