package documents

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The documents agent's skills.
const (
	SkillRetrieve = "retrieve_document"
	SkillSearch   = "search_documents"
	SkillList     = "list_documents"
	SkillUpdate   = "update_document"
	SkillDelete   = "delete_document"
)

// Trusted headers the gateway sets on calls it authorised with a capability.
const (
	HeaderCapabilityID         = "A2A-Capability-Id"
	HeaderCapabilityPrincipal  = "A2A-Capability-Principal"
	HeaderCapabilityHolder     = "A2A-Capability-Holder"
	HeaderCapabilityOperations = "A2A-Capability-Operations"
)

// SkillOperation returns the capability operation a skill needs
// ("retrieve", "search", "list", "update", "delete") and false for an
// unknown skill.
func SkillOperation(skill string) (string, bool) {
	switch skill {
	case SkillRetrieve:
		return "retrieve", true
	case SkillSearch:
		return "search", true
	case SkillList:
		return "list", true
	case SkillUpdate:
		return "update", true
	case SkillDelete:
		return "delete", true
	}
	return "", false
}

// InvokeParams are the params of a2a/skill/invoke as the gateway forwards
// them.
type InvokeParams struct {
	Skill        string          `json:"skill"`                  // skill name, e.g. "retrieve_document"
	Arguments    json.RawMessage `json:"arguments"`              // resourceId / resourceIds / query / content
	CapabilityID string          `json:"capabilityId,omitempty"` // the authorising capability (informative here)
}

// skillArgs are the arguments every skill may take, after the gateway's
// handle rewrite.
type skillArgs struct {
	ResourceID  string    `json:"resourceId"`
	ResourceIDs *[]string `json:"resourceIds"`
	Query       string    `json:"query"`
	Content     *string   `json:"content"`
}

// DocumentRef is a document as list and search return it: by title, the
// display name the caller's capability gives its handle. The agent never
// answers with its storage ids; the caller names documents by handle, and
// the gateway would map an id back to the handle anyway.
type DocumentRef struct {
	Title string `json:"title"` // document title
}

// DocumentView is what retrieve_document and update_document return.
type DocumentView struct {
	Title   string `json:"title"`   // document title
	Content string `json:"content"` // full content; first line is a summary
}

// DocumentList is what list_documents and search_documents return.
type DocumentList struct {
	Query     string        `json:"query,omitempty"` // the search query (search only)
	Documents []DocumentRef `json:"documents"`       // matches sorted by id, never null
}

// Deleted is what delete_document returns.
type Deleted struct {
	Deleted bool `json:"deleted"` // always true
}

// invoke serves a2a/skill/invoke.
func (a *Agent) invoke(_ context.Context, call Call) (any, error) {
	var p InvokeParams
	if err := decodeStrict(call.Params, &p, ErrInvalidParams, "skill", "arguments", "capabilityId"); err != nil {
		return nil, fmt.Errorf("a2a/skill/invoke params: %w", err)
	}
	op, ok := SkillOperation(p.Skill)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownSkill, quote(p.Skill))
	}
	if err := checkOperation(call.Header, op); err != nil {
		return nil, err
	}
	args, err := decodeArgs(p.Arguments)
	if err != nil {
		return nil, err
	}
	switch p.Skill {
	case SkillRetrieve:
		return a.retrieve(args)
	case SkillSearch:
		return a.search(args)
	case SkillList:
		return a.list(args)
	case SkillUpdate:
		return a.update(args)
	default:
		return a.remove(args)
	}
}

// checkOperation enforces the gateway's A2A-Capability-Operations header
// when it is present: the skill's operation, or "*", must be listed.
func checkOperation(h http.Header, op string) error {
	values, present := h[http.CanonicalHeaderKey(HeaderCapabilityOperations)]
	if !present {
		return nil
	}
	for _, v := range values {
		for o := range strings.SplitSeq(v, ",") {
			if o = strings.TrimSpace(o); o == op || o == "*" {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: skill needs %q", ErrOperationNotPermitted, op)
}

// decodeArgs parses the skill arguments, refusing any resource handle
// that the gateway left in place.
func decodeArgs(raw json.RawMessage) (skillArgs, error) {
	var args skillArgs
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	keys, err := objectKeys(raw)
	if err != nil {
		return args, fmt.Errorf("%w: arguments must be an object: %w", ErrInvalidParams, err)
	}
	for _, k := range keys {
		if k == "resourceHandle" || k == "resourceHandles" {
			return args, fmt.Errorf("%w: arguments.%s is present", ErrUnresolvedHandle, k)
		}
	}
	fields := []string{"resourceId", "resourceIds", "query", "content", "resourceHandle", "resourceHandles"}
	if err := decodeStrict(raw, &args, ErrInvalidParams, fields...); err != nil {
		return args, fmt.Errorf("arguments: %w", err)
	}
	return args, nil
}

func (a *Agent) retrieve(args skillArgs) (any, error) {
	d, err := a.docAt(args)
	if err != nil {
		return nil, err
	}
	return DocumentView{Title: d.Title, Content: d.Content}, nil
}

func (a *Agent) search(args skillArgs) (any, error) {
	if args.Query == "" {
		return nil, fmt.Errorf("%w: arguments.query is required", ErrInvalidParams)
	}
	docs, err := a.docsWithin(args)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(args.Query)
	out := DocumentList{Query: args.Query, Documents: []DocumentRef{}}
	for _, d := range docs {
		if strings.Contains(strings.ToLower(d.Title), q) || strings.Contains(strings.ToLower(d.Content), q) {
			out.Documents = append(out.Documents, DocumentRef{Title: d.Title})
		}
	}
	return out, nil
}

func (a *Agent) list(args skillArgs) (any, error) {
	docs, err := a.docsWithin(args)
	if err != nil {
		return nil, err
	}
	out := DocumentList{Documents: make([]DocumentRef, 0, len(docs))}
	for _, d := range docs {
		out.Documents = append(out.Documents, DocumentRef{Title: d.Title})
	}
	return out, nil
}

func (a *Agent) update(args skillArgs) (any, error) {
	if args.ResourceID == "" {
		return nil, fmt.Errorf("%w: arguments.resourceId is required", ErrInvalidParams)
	}
	if args.Content == nil {
		return nil, fmt.Errorf("%w: arguments.content is required", ErrInvalidParams)
	}
	d, err := a.docs.update(args.ResourceID, *args.Content, a.now())
	if err != nil {
		return nil, err
	}
	return DocumentView{Title: d.Title, Content: d.Content}, nil
}

func (a *Agent) remove(args skillArgs) (any, error) {
	if args.ResourceID == "" {
		return nil, fmt.Errorf("%w: arguments.resourceId is required", ErrInvalidParams)
	}
	if err := a.docs.delete(args.ResourceID); err != nil {
		return nil, err
	}
	return Deleted{Deleted: true}, nil
}

func (a *Agent) docAt(args skillArgs) (Document, error) {
	if args.ResourceID == "" {
		return Document{}, fmt.Errorf("%w: arguments.resourceId is required", ErrInvalidParams)
	}
	return a.docs.get(args.ResourceID)
}

// docsWithin returns the existing documents among arguments.resourceIds.
// Without resourceIds the call is refused: the agent never widens a
// list or search to everything it holds.
func (a *Agent) docsWithin(args skillArgs) ([]Document, error) {
	if args.ResourceIDs == nil {
		return nil, fmt.Errorf("%w: arguments.resourceIds is required", ErrInvalidParams)
	}
	if slices.Contains(*args.ResourceIDs, "") {
		return nil, fmt.Errorf("%w: arguments.resourceIds holds an empty id", ErrInvalidParams)
	}
	return a.docs.within(*args.ResourceIDs), nil
}

// quote formats attacker-controlled text for an error message, bounded.
func quote(s string) string {
	const limit = 128
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return fmt.Sprintf("%q", s)
}
