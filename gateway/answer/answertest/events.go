// Package answertest holds what tests of the answer pipeline and of the
// fronts that use it share: a client's reading of an event stream,
// written independently of the pipeline's own.
package answertest

import "strings"

// ClientEvents parses an SSE stream as a conforming client does (lines
// end in CRLF, LF or CR; a field named exactly "data" appends to the
// data; a blank line dispatches; an unterminated event is discarded) and
// returns the data of every dispatched event.
func ClientEvents(stream string) []string {
	var out []string
	var data strings.Builder
	has := false
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(stream, "\r\n", "\n"), "\r", "\n"), "\n")
	for _, l := range lines[:len(lines)-1] { // the last is unterminated
		switch {
		case l == "":
			if has {
				out = append(out, strings.TrimSuffix(data.String(), "\n"))
			}
			data.Reset()
			has = false
		case strings.HasPrefix(l, ":"):
		default:
			name, value, _ := strings.Cut(l, ":")
			if name == "data" {
				data.WriteString(strings.TrimPrefix(value, " ") + "\n")
				has = true
			}
		}
	}
	return out
}
