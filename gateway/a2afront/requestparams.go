package a2afront

import (
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// Issuance decodes its params on every request, and through encoding/json
// with the exact-name pass that was a twentieth of an issuance's CPU. As
// for invocations (invokeparams.go), the common shape is read by a scan of
// the checked bytes, and anything else takes the strict decoder, which
// also words every refusal.

// requestParams decodes the params of a2a/capabilities/request strictly.
func requestParams(req jsonrpc.Request) (p sep.RequestParams, err error) {
	if req.ParamsChecked() {
		if plainP, ok := plainRequestParams(req.Params); ok {
			return plainP, nil
		}
	}
	err = req.UnmarshalParams(&p)
	return p, err
}

// plainRequestParams decodes params that Decode already checked when they
// have the common shape: an object whose keys are plain ASCII and exactly
// grants or operations (arrays of strings), purpose or approvalId
// (strings), or resourceQuery (an object of a collection string and a
// filter object of strings). It returns what jsonrpc.UnmarshalParams
// returns for the same bytes (a fuzz target compares the two), or ok
// false for anything else (expires, null, other members), which includes
// every refusal.
func plainRequestParams(params []byte) (p sep.RequestParams, ok bool) {
	ok = eachPlainMember(params, func(k, v []byte) (ok bool) {
		switch string(k) {
		case "grants":
			p.Grants, ok = plainStrings(v)
		case "operations":
			p.Operations, ok = plainStrings(v)
		case "purpose":
			p.Purpose, ok = plainString(v)
		case "approvalId":
			p.ApprovalID, ok = plainString(v)
		case "resourceQuery":
			p.ResourceQuery, ok = plainResourceQuery(v)
		}
		return ok
	})
	if !ok {
		return sep.RequestParams{}, false
	}
	return p, true
}

// plainResourceQuery reads a resource query of plain-keyed members.
func plainResourceQuery(v []byte) (*sep.ResourceQuery, bool) {
	q := &sep.ResourceQuery{}
	ok := eachPlainMember(v, func(k, val []byte) (ok bool) {
		switch string(k) {
		case "collection":
			q.Collection, ok = plainString(val)
		case "filter":
			q.Filter, ok = plainStringMap(val)
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return q, true
}

// plainStringMap reads an object of plain-keyed string members as
// encoding/json decodes it into map[string]string.
func plainStringMap(v []byte) (map[string]string, bool) {
	m := map[string]string{}
	ok := eachPlainMember(v, func(k, val []byte) bool {
		s, ok := plainString(val)
		m[string(k)] = s
		return ok
	})
	if !ok {
		return nil, false
	}
	return m, true
}

// plainStrings reads an array of string literals as encoding/json decodes
// it into []string ([] is an empty, non-nil slice).
func plainStrings(v []byte) ([]string, bool) {
	it, isArray := jsonrpc.WalkArray(v)
	if !isArray {
		return nil, false
	}
	out := []string{}
	for elem, more := it.Next(); more; elem, more = it.Next() {
		s, ok := plainString(elem)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, it.Err() == nil
}

// invalidMember is invalid_params naming in data.member the path of the
// member at fault (issue.InvalidMember).
func invalidMember(member, msg string, data map[string]any) *jsonrpc.Error {
	return issue.InvalidMember(member, msg, data)
}
