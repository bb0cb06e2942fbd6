package policy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Problem is one finding of Load: an error, or a warning when Warning is
// set. Problem implements error and unwraps to one of the package's
// sentinel errors, so errors.Is works on Load's joined error.
type Problem struct {
	// Pos is file:line:col of the offending YAML node (file:line when the
	// YAML parser only knows the line).
	Pos string `json:"pos"`
	// Path is the field path, for example rules[2].grants[0].
	Path string `json:"path,omitempty"`
	// Message explains the problem for humans.
	Message string `json:"message"`
	// Warning marks findings that do not prevent loading.
	Warning bool `json:"warning,omitempty"`
	// Err is the sentinel error this problem is an instance of.
	Err error `json:"-"`

	line, col int
}

// Error renders the problem as "file:line:col: path: message".
func (p Problem) Error() string {
	s := p.Pos + ": "
	if p.Path != "" {
		s += p.Path + ": "
	}
	if p.Warning {
		s += "warning: "
	}
	return s + p.Message
}

// Unwrap returns the sentinel error.
func (p Problem) Unwrap() error { return p.Err }

// problems collects findings while loading one document.
type problems struct {
	name  string
	list  []Problem
	nodes map[string]*yaml.Node
}

func newProblems(name string) *problems {
	return &problems{name: name, nodes: make(map[string]*yaml.Node)}
}

// pos renders the position of n.
func (ps *problems) pos(n *yaml.Node) string {
	if n == nil {
		return ps.name
	}
	return ps.name + ":" + strconv.Itoa(n.Line) + ":" + strconv.Itoa(n.Column)
}

// node returns the recorded node of path, or of its closest recorded parent.
func (ps *problems) node(path string) *yaml.Node {
	for p := path; ; {
		if n, ok := ps.nodes[p]; ok {
			return n
		}
		if p == "" {
			return nil
		}
		p = parentPath(p)
	}
}

// parentPath strips the last element of a field path.
func parentPath(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '.' || p[i] == '[' {
			return p[:i]
		}
	}
	return ""
}

// add records an error at the node of path.
func (ps *problems) add(path string, err error, format string, args ...any) {
	ps.addAt(ps.node(path), path, err, format, args...)
}

// warn records a warning at the node of path.
func (ps *problems) warn(path string, err error, format string, args ...any) {
	ps.record(ps.node(path), path, err, true, fmt.Sprintf(format, args...))
}

// addAt records an error at an explicit node, unless an error was already
// recorded at path or inside it (one mistake, one message: a list written
// as a scalar is not also reported as missing).
func (ps *problems) addAt(n *yaml.Node, path string, err error, format string, args ...any) {
	for _, p := range ps.list {
		if !p.Warning && path != "" && (p.Path == path || strings.HasPrefix(p.Path, path+".") || strings.HasPrefix(p.Path, path+"[")) {
			return
		}
	}
	ps.record(n, path, err, false, fmt.Sprintf(format, args...))
}

// recordf records an error unconditionally (decoding errors are never
// consequences of another problem).
func (ps *problems) recordf(n *yaml.Node, path string, err error, format string, args ...any) {
	ps.record(n, path, err, false, fmt.Sprintf(format, args...))
}

func (ps *problems) record(n *yaml.Node, path string, err error, warning bool, msg string) {
	pr := Problem{Pos: ps.pos(n), Path: path, Message: msg, Warning: warning, Err: err}
	if n != nil {
		pr.line, pr.col = n.Line, n.Column
	}
	ps.list = append(ps.list, pr)
}

// sorted returns the problems in document order.
func (ps *problems) sorted() []Problem {
	slices.SortStableFunc(ps.list, func(a, b Problem) int {
		if a.line != b.line {
			return a.line - b.line
		}
		return a.col - b.col
	})
	return ps.list
}

// err joins every non-warning problem, or returns nil.
func (ps *problems) err() error {
	var errs []error
	for _, p := range ps.sorted() {
		if !p.Warning {
			errs = append(errs, p)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: %d problem(s):\n%w", ErrInvalidPolicy, ps.name, len(errs), errors.Join(errs...))
}
