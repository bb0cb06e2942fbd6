package proxy

import (
	"io"
	"mime"
	"net/http"
	"strings"
)

// On a call scoped to a capability the gateway mediates the answer's body
// (storage ids become handles, other principals' data is refused), so an
// answer header must not carry what the body may not. ScopedResponseHeaders
// keeps the headers a caller needs, each only in a shape that cannot carry
// free text, and drops every other one.

// scopedHeaders maps each header kept on a scoped answer to the check its
// value must pass. A value that fails is dropped, not repaired.
var scopedHeaders = map[string]func(string) (string, bool){
	// Content.
	"Content-Type":     mediaType,
	"Content-Length":   digits,
	"Content-Encoding": oneOf("gzip", "deflate", "br", "zstd", "identity"),
	// Caching.
	"Cache-Control": cacheControl,
	"Expires":       httpDate,
	"Last-Modified": httpDate,
	"Date":          httpDate,
	"Age":           digits,
	"Pragma":        oneOf("no-cache"),
	// Retrying.
	"Retry-After": func(v string) (string, bool) {
		if s, ok := digits(v); ok {
			return s, true
		}
		return httpDate(v)
	},
	// Tracing (W3C Trace Context; tracestate and baggage are free text).
	"Traceparent":   traceparent,
	"Traceresponse": traceparent,
	// Streaming: nginx and its kin must not buffer an event stream.
	"X-Accel-Buffering": oneOf("no", "yes"),
}

// ScopedResponseHeaders filters the headers of an answer to a call scoped
// to a capability, in place: it keeps Content-Type (media type and
// charset only), Content-Length, Content-Encoding, Cache-Control (known
// directives only), Expires, Last-Modified, Date, Age, Pragma: no-cache,
// Retry-After, traceparent and traceresponse (W3C format), and
// X-Accel-Buffering, each only when its value has the expected shape, and
// removes every other header, ETag, Link, Location, Set-Cookie and
// custom X- headers included: any of them could name a storage id or
// another principal's resource.
func ScopedResponseHeaders(h http.Header) {
	for name, vv := range h {
		check, ok := scopedHeaders[name]
		if !ok {
			delete(h, name)
			continue
		}
		kept := vv[:0]
		for _, v := range vv {
			if s, ok := check(strings.TrimSpace(v)); ok {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			delete(h, name)
			continue
		}
		h[name] = kept
	}
}

// ScopeAnswer applies ScopedResponseHeaders to resp's headers and drops
// its trailers, including those the upstream sends after the body: call
// it from the response hook (Options.ModifyResponse) of a call scoped to a
// capability, before the body is read or replaced.
func ScopeAnswer(resp *http.Response) {
	ScopedResponseHeaders(resp.Header)
	resp.Trailer = nil
	if resp.Body != nil && resp.Body != http.NoBody {
		resp.Body = &trailerless{ReadCloser: resp.Body, resp: resp}
	}
}

// trailerless is an answer body that forgets the trailers the transport
// records on resp once it reaches the end of the upstream body.
type trailerless struct {
	io.ReadCloser
	resp *http.Response
}

func (t *trailerless) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.resp.Trailer = nil
	return n, err
}

// mediaType keeps the media type and its charset, nothing else.
func mediaType(v string) (string, bool) {
	mt, params, err := mime.ParseMediaType(v)
	if err != nil {
		return "", false
	}
	cs, ok := params["charset"]
	if !ok {
		return mime.FormatMediaType(mt, nil), true
	}
	if !charsetName(cs) {
		return mime.FormatMediaType(mt, nil), true
	}
	return mime.FormatMediaType(mt, map[string]string{"charset": strings.ToLower(cs)}), true
}

// cacheControl keeps the known directives, those with a value only when
// it is a number; it drops the header when none is left.
func cacheControl(v string) (string, bool) {
	var kept []string
	for _, d := range strings.Split(v, ",") {
		name, arg, hasArg := strings.Cut(strings.ToLower(strings.TrimSpace(d)), "=")
		switch name {
		case "no-cache", "no-store", "private", "public", "must-revalidate", "proxy-revalidate",
			"no-transform", "immutable", "must-understand":
			if !hasArg {
				kept = append(kept, name)
			}
		case "max-age", "s-maxage", "stale-while-revalidate", "stale-if-error":
			if n, ok := digits(arg); ok {
				kept = append(kept, name+"="+n)
			}
		}
	}
	return strings.Join(kept, ", "), len(kept) > 0
}

// traceparent accepts a W3C traceparent: version-traceid-parentid-flags
// in lower-case hex.
func traceparent(v string) (string, bool) {
	parts := strings.Split(v, "-")
	if len(parts) != 4 {
		return "", false
	}
	for i, n := range [...]int{2, 32, 16, 2} {
		if len(parts[i]) != n || strings.Trim(parts[i], "0123456789abcdef") != "" {
			return "", false
		}
	}
	return v, true
}

// digits accepts a non-empty decimal number of at most 19 digits.
func digits(v string) (string, bool) {
	if v == "" || len(v) > 19 || strings.Trim(v, "0123456789") != "" {
		return "", false
	}
	return v, true
}

// httpDate accepts an HTTP date and writes it in the preferred form.
func httpDate(v string) (string, bool) {
	t, err := http.ParseTime(v)
	if err != nil {
		return "", false
	}
	return t.UTC().Format(http.TimeFormat), true
}

// oneOf accepts exactly one of the given lower-case tokens, in any case.
func oneOf(tokens ...string) func(string) (string, bool) {
	return func(v string) (string, bool) {
		v = strings.ToLower(v)
		for _, t := range tokens {
			if v == t {
				return t, true
			}
		}
		return "", false
	}
}

// charsetName reports whether s looks like a charset name.
func charsetName(s string) bool {
	return s != "" && len(s) <= 40 && strings.Trim(strings.ToLower(s), "abcdefghijklmnopqrstuvwxyz0123456789-_.:") == ""
}
