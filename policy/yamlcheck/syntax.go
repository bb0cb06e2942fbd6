package yamlcheck

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxSyntaxLines bounds the documents Syntax re-parses line by line; a
// longer one keeps the parser's own line.
const maxSyntaxLines = 2000

// Syntax places err, the error yaml.Unmarshal returned for data. A prefix
// of a block YAML document cut at a line end parses, unless it ends inside
// the broken construct; so the problem is on the line after the longest
// prefix that still parses, at the column after the longest part of that
// line that still parses, inside the key path that prefix ends in.
func Syntax(data []byte, err error) Problem {
	msg, libLine := splitMessage(err)
	p := Problem{Line: libLine, Msg: msg}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > maxSyntaxLines || parses(data) {
		return p
	}
	good := 0 // lines[:good] parses
	for k := len(lines) - 1; k >= 0; k-- {
		if parses(bytes.Join(lines[:k], nil)) {
			good = k
			break
		}
	}
	head := bytes.Join(lines[:good], nil)
	line := lines[good]
	cut := 0 // head+line[:cut] parses
	for c := len(line) - 1; c > 0; c-- {
		if utf8.RuneStart(line[c]) && parses(append(append([]byte{}, head...), line[:c]...)) {
			cut = c
			break
		}
	}
	p.Line, p.Col = good+1, utf8.RuneCount(line[:cut])+1
	var root yaml.Node
	if yaml.Unmarshal(append(append([]byte{}, head...), line[:cut]...), &root) == nil {
		p.Path = lastPath(&root)
	}
	if libLine > p.Line+1 {
		p.Msg += " (the parser noticed at line " + strconv.Itoa(libLine) + "; is a quote or bracket here left open?)"
	}
	return p
}

func parses(data []byte) bool {
	var n yaml.Node
	return yaml.Unmarshal(data, &n) == nil
}

// splitMessage splits "yaml: line 7: msg" into msg and 7.
func splitMessage(err error) (string, int) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(num); err == nil {
				return tail, line
			}
		}
	}
	return msg, 0
}

// lastPath is the key path of the last value in the document: where a
// parser reading on would be.
func lastPath(n *yaml.Node) string {
	path := ""
	for {
		switch {
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		case n.Kind == yaml.MappingNode && len(n.Content) >= 2:
			path = join(path, n.Content[len(n.Content)-2].Value)
			n = n.Content[len(n.Content)-1]
		case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
			path += "[" + strconv.Itoa(len(n.Content)-1) + "]"
			n = n.Content[len(n.Content)-1]
		default:
			return path
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
