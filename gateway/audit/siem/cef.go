package siem

import (
	"strconv"
	"strings"
)

// headerEscaper escapes a CEF header field: backslash and pipe.
var headerEscaper = strings.NewReplacer(`\`, `\\`, `|`, `\|`, "\n", " ", "\r", " ")

// extEscaper escapes a CEF extension value: backslash, equals sign and
// line breaks.
var extEscaper = strings.NewReplacer(`\`, `\\`, `=`, `\=`, "\n", `\n`, "\r", `\r`)

// cefLabels name the custom extensions.
var cefLabels = map[string]string{
	"cs1": "chain", "cn1": "seq", "cs2": "hash", "cs3": "agent",
	"cs4": "capabilityId", "cs5": "grant", "cs6": "policyRevision",
}

// cef renders e as one CEF line.
func (r *Renderer) cef(e event) string {
	word, ok := e.outcome()
	severity, outcome := "3", "success"
	if !ok {
		severity, outcome = "6", "failure"
	}
	name := e.name
	if word != "" {
		name += " " + word
	}
	var b strings.Builder
	for _, f := range []string{"CEF:0", "capgate", "capgate", r.version, e.name, name, severity} {
		if f != "CEF:0" {
			f = headerEscaper.Replace(f)
		}
		b.WriteString(f)
		b.WriteByte('|')
	}
	ext := [][2]string{
		{"rt", strconv.FormatInt(e.time.UnixMilli(), 10)},
		{"suser", e.acting()}, {"duser", str(e.raw, "holder")},
		{"act", word}, {"outcome", outcome}, {"reason", first(e.raw, "reason", "code")},
		{"msg", str(e.raw, "purpose")},
		{"cs1", e.chain}, {"cn1", strconv.FormatUint(e.seq, 10)}, {"cs2", e.hash},
		{"cs3", e.target()}, {"cs4", e.capability()}, {"cs5", str(e.raw, "grant")},
		{"cs6", str(e.raw, "policy_revision")},
	}
	sep := ""
	for _, kv := range ext {
		if kv[1] == "" {
			continue
		}
		if label := cefLabels[kv[0]]; label != "" {
			b.WriteString(sep + kv[0] + "Label=" + label)
			sep = " "
		}
		b.WriteString(sep + kv[0] + "=" + extEscaper.Replace(kv[1]))
		sep = " "
	}
	return b.String()
}
