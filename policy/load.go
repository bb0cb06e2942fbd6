package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/capgate/capgate/policy/yamlcheck"
	"go.yaml.in/yaml/v3"
)

// Load parses, validates and compiles a policy document against cat. name
// (usually the file path) prefixes every Problem position.
//
// Load reports every problem it finds, not just the first: the returned
// []Problem holds errors and warnings in document order, and the error, when
// there is at least one non-warning problem, wraps ErrInvalidPolicy and
// joins every problem (each unwraps to its sentinel, so errors.Is works).
// When the error is non-nil the *Policy is nil: a broken policy is never
// half-applied. ctx is only checked for cancellation.
func Load(ctx context.Context, data []byte, name string, cat Catalog) (*Policy, []Problem, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ps := newProblems(name)
	raw, ok := parseDocument(ps, data)
	if !ok {
		return nil, ps.sorted(), ps.err()
	}
	env, err := newCELEnv()
	if err != nil {
		return nil, ps.sorted(), fmt.Errorf("policy: building CEL environment: %w", err)
	}
	c := &compiler{ps: ps, env: env, cat: cat}
	c.version(raw.Version)
	c.defaults(raw.Defaults)
	p := &Policy{name: name, revision: Revision(data), cat: cat}
	p.rules = c.rules(raw.Rules)
	p.a2e = c.a2eRules(raw.A2E)
	p.ambient = c.ambientRules(raw.Ambient)
	if err := ps.err(); err != nil {
		return nil, ps.sorted(), err
	}
	p.buildIndexes()
	c.lint(p)
	return p, ps.sorted(), nil
}

// Revision returns the revision string of a policy document: the first 12
// hex digits of its sha256.
func Revision(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// parseDocument turns data into the raw model, recording problems.
func parseDocument(ps *problems, data []byte) (*rawFile, bool) {
	if len(data) > MaxPolicyBytes {
		ps.addAt(nil, "", ErrTooLarge, "policy is %d bytes; the limit is %d", len(data), MaxPolicyBytes)
		return nil, false
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			ps.addAt(nil, "", ErrMissingField, "empty policy document (expected at least `version: 1`)")
		} else {
			ps.list = append(ps.list, yamlProblem(ps.name, data, err))
		}
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		ps.addAt(&extra, "", ErrSyntax, "a policy file holds exactly one YAML document")
		return nil, false
	}
	root := &doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root = doc.Content[0]
	}
	raw := &rawFile{}
	d := &decoder{ps: ps}
	d.decode(root, "", reflect.ValueOf(raw).Elem())
	return raw, true
}

// yamlProblem converts a yaml.v3 parse error into a Problem placed at the
// construct that broke the document, with its key path.
func yamlProblem(name string, data []byte, err error) Problem {
	yp := yamlcheck.Syntax(data, err)
	pos := name
	if yp.Line > 0 {
		pos = fmt.Sprintf("%s:%d:%d", name, yp.Line, yp.Col)
	}
	return Problem{Pos: pos, Path: yp.Path, Message: yp.Msg, Err: ErrSyntax, line: yp.Line, col: yp.Col}
}
