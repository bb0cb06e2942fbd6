package pushrelay

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrConfig means a caller's push config cannot be read.
var ErrConfig = errors.New("pushrelay: invalid push config")

// maxField bounds each string of a push config.
const maxField = 4096

// Config is a caller's push config as it was set: the target and the id
// the caller named, if any.
type Config struct {
	// ID is the caller's id of the config ("" when it named none).
	ID string
	// Target is where the caller wants the pushes.
	Target Target
}

// ParseConfig reads a caller's push config, in v0.3's shape (url, id,
// token, authentication {schemes, credentials}) or v1.0's
// (authentication {scheme, credentials}, and a taskId, which the caller
// reads elsewhere). Member names must be spelled exactly: the agent never
// sees this object, only the relay's, so a member the relay did not read
// would be silently lost, and is refused instead.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return Config{}, fmt.Errorf("%w: not an object", ErrConfig)
	}
	var c Config
	for name, v := range m {
		var err error
		switch name {
		case "url":
			err = str(v, &c.Target.URL)
		case "id":
			err = str(v, &c.ID)
		case "token":
			err = str(v, &c.Target.Token)
		case "taskId":
			var s string
			err = str(v, &s)
		case "authentication":
			c.Target.Auth, err = parseAuth(v)
		default:
			err = fmt.Errorf("%w: member %q is not a push config's", ErrConfig, name)
		}
		if err != nil {
			return Config{}, fmt.Errorf("%w (%s)", err, name)
		}
	}
	if c.Target.URL == "" {
		return Config{}, fmt.Errorf("%w: url is required", ErrConfig)
	}
	return c, nil
}

func str(v json.RawMessage, dst *string) error {
	if string(v) == "null" {
		return nil
	}
	if json.Unmarshal(v, dst) != nil || len(*dst) > maxField {
		return fmt.Errorf("%w: not a string of at most %d bytes", ErrConfig, maxField)
	}
	return nil
}

func parseAuth(raw json.RawMessage) (*Auth, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, fmt.Errorf("%w: authentication is not an object", ErrConfig)
	}
	a := &Auth{}
	for name, v := range m {
		var err error
		switch name {
		case "schemes":
			if json.Unmarshal(v, &a.Schemes) != nil || len(a.Schemes) > 8 {
				err = fmt.Errorf("%w: authentication.schemes is not a list of names", ErrConfig)
			}
		case "scheme":
			var s string
			if err = str(v, &s); err == nil && s != "" {
				a.Schemes = append(a.Schemes, s)
			}
		case "credentials":
			err = str(v, &a.Credentials)
		default:
			err = fmt.Errorf("%w: member authentication.%s is not a push config's", ErrConfig, name)
		}
		if err != nil {
			return nil, err
		}
	}
	return a, nil
}

// TaskOf returns the task a pushed body is about: a v0.3 Task's id (or
// a status or artifact update's taskId), or in v1.0's StreamResponse the
// task's id or the update's taskId. ok is false when the body names no
// task, or names it twice differently.
func TaskOf(body []byte) (task string, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m == nil {
		return "", false
	}
	for _, name := range []string{"task", "statusUpdate", "artifactUpdate"} {
		if raw, has := m[name]; has {
			var inner map[string]json.RawMessage
			if len(m) != 1 || json.Unmarshal(raw, &inner) != nil || inner == nil {
				return "", false
			}
			return taskMember(inner) // one level of wrapping, no more
		}
	}
	return taskMember(m)
}

// taskMember reads the task of a v0.3 event, or of what a v1.0
// StreamResponse wraps.
func taskMember(m map[string]json.RawMessage) (string, bool) {
	var id, taskID string
	if raw, has := m["id"]; has && json.Unmarshal(raw, &id) != nil {
		return "", false
	}
	if raw, has := m["taskId"]; has && json.Unmarshal(raw, &taskID) != nil {
		return "", false
	}
	var kind string
	_ = json.Unmarshal(m["kind"], &kind)
	switch {
	case taskID != "" && (kind == "status-update" || kind == "artifact-update" || id == ""):
		return taskID, true
	case id != "" && taskID == "":
		return id, true
	}
	return "", false
}
