package yamlcheck

import "fmt"

// Problem is one problem at a place in a YAML document.
type Problem struct {
	// Line and Col are 1-based; 0 when unknown.
	Line, Col int
	// Path is the key path, e.g. listen.read_header_timeout or
	// agents[0].url; empty for the document itself.
	Path string
	// Msg explains the problem.
	Msg string
}

// Format renders the problem as "name:line:col: path: msg", leaving out
// what is unknown.
func (p Problem) Format(name string) string {
	pos := name
	if p.Line > 0 {
		pos += fmt.Sprintf(":%d", p.Line)
		if p.Col > 0 {
			pos += fmt.Sprintf(":%d", p.Col)
		}
	}
	if p.Path != "" {
		return pos + ": " + p.Path + ": " + p.Msg
	}
	return pos + ": " + p.Msg
}
