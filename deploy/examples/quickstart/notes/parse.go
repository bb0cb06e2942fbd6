package notes

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/a2aproject/a2a-go/a2a"
)

// The agent's skills, as its card names them.
const (
	// SkillRead reads notes.
	SkillRead = "notes.read"
	// SkillWrite appends a line to one note.
	SkillWrite = "notes.write"
)

// The operations of the gateway's grants the skills perform (the skills
// map of the agent's entry in capgate.yaml).
const (
	// OperationRead is the operation of SkillRead.
	OperationRead = "read"
	// OperationWrite is the operation of SkillWrite.
	OperationWrite = "write"
)

// operationOf is the operation skill performs; a validated command names
// one of the two skills.
func operationOf(skill string) string {
	if skill == SkillWrite {
		return OperationWrite
	}
	return OperationRead
}

// Members of the data part that asks for a skill.
const (
	memberSkill       = "skill"
	memberResourceID  = "resourceId"
	memberResourceIDs = "resourceIds"
	memberText        = "text"
)

// ErrBadRequest means a message does not say what to do in a way the agent
// understands. Its text never quotes a value from the message.
var ErrBadRequest = errors.New("notes: cannot understand the message")

// command is what one message asks.
type command struct {
	skill string
	ids   []string
	text  string
}

// parseMessage reads the command a message carries: from its data part
// when it has one, else from its text parts.
func parseMessage(msg *a2a.Message) (command, error) {
	if msg == nil {
		return command{}, fmt.Errorf("%w: no message", ErrBadRequest)
	}
	var data []map[string]any
	var texts []string
	for _, p := range msg.Parts {
		switch p := p.(type) {
		case a2a.DataPart:
			data = append(data, p.Data)
		case a2a.TextPart:
			texts = append(texts, p.Text)
		}
	}
	var c command
	var err error
	switch {
	case len(data) > 1:
		return command{}, fmt.Errorf("%w: at most one data part", ErrBadRequest)
	case len(data) == 1:
		c, err = parseData(data[0])
	case len(texts) > 0:
		c, err = parseText(strings.Join(texts, "\n"))
	default:
		return command{}, fmt.Errorf("%w: no text or data part", ErrBadRequest)
	}
	if err == nil {
		err = c.validate()
	}
	if err != nil {
		return command{}, err
	}
	return c, nil
}

// parseData reads {"skill", "resourceId" | "resourceIds", "text"}. Without
// a skill, a part with text writes and one without reads.
func parseData(data map[string]any) (command, error) {
	var c command
	var one, many bool
	for k, v := range data {
		var err error
		switch k {
		case memberSkill:
			c.skill, err = stringMember(k, v)
		case memberResourceID:
			one = true
			var id string
			id, err = stringMember(k, v)
			c.ids = append(c.ids, id)
		case memberResourceIDs:
			many = true
			c.ids, err = stringsMember(k, v)
		case memberText:
			c.text, err = stringMember(k, v)
		default:
			err = fmt.Errorf("%w: unknown data member (want skill, resourceId, resourceIds, text)", ErrBadRequest)
		}
		if err != nil {
			return command{}, err
		}
	}
	if one && many {
		return command{}, fmt.Errorf("%w: name notes by resourceId or resourceIds, not both", ErrBadRequest)
	}
	if c.skill == "" {
		c.skill = SkillRead
		if _, ok := data[memberText]; ok {
			c.skill = SkillWrite
		}
	}
	return c, nil
}

func stringMember(name string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: %s must be a string", ErrBadRequest, name)
	}
	return s, nil
}

func stringsMember(name string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s must be an array of strings", ErrBadRequest, name)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%w: %s must be an array of strings", ErrBadRequest, name)
		}
		out = append(out, s)
	}
	return out, nil
}

// parseText reads "read ID...", "append ID: TEXT" (or "write ID: TEXT"),
// or a bare list of ids to read.
func parseText(text string) (command, error) {
	text = strings.TrimSpace(text)
	verb, rest := text, ""
	if i := strings.IndexFunc(text, unicode.IsSpace); i >= 0 {
		verb, rest = text[:i], text[i:]
	}
	switch strings.ToLower(verb) {
	case "read":
		return command{skill: SkillRead, ids: strings.Fields(rest)}, nil
	case "append", "write":
		rest = strings.TrimSpace(rest)
		i := strings.IndexAny(rest, ": \t\r\n")
		if i < 0 {
			return command{skill: SkillWrite, ids: []string{rest}}, nil
		}
		body := strings.TrimPrefix(strings.TrimSpace(rest[i:]), ":")
		return command{skill: SkillWrite, ids: []string{rest[:i]}, text: strings.TrimSpace(body)}, nil
	}
	if ValidID(verb) == nil {
		return command{skill: SkillRead, ids: strings.Fields(text)}, nil
	}
	return command{}, fmt.Errorf("%w: say \"read ID\" or \"append ID: TEXT\"", ErrBadRequest)
}

// validate checks the command against the skill it names.
func (c command) validate() error {
	for i, id := range c.ids {
		if err := ValidID(id); err != nil {
			return fmt.Errorf("%w: %w", ErrBadRequest, err)
		}
		if slices.Contains(c.ids[:i], id) {
			return fmt.Errorf("%w: a note is named twice", ErrBadRequest)
		}
	}
	switch c.skill {
	case SkillRead:
		if len(c.ids) == 0 || len(c.ids) > MaxReadNotes {
			return fmt.Errorf("%w: %s names 1 to %d notes", ErrBadRequest, SkillRead, MaxReadNotes)
		}
		if c.text != "" {
			return fmt.Errorf("%w: text is for %s only", ErrBadRequest, SkillWrite)
		}
	case SkillWrite:
		if len(c.ids) != 1 {
			return fmt.Errorf("%w: %s names exactly one note", ErrBadRequest, SkillWrite)
		}
		if c.text == "" || len(c.text) > MaxAppendBytes {
			return fmt.Errorf("%w: %s appends 1 to %d bytes of text", ErrBadRequest, SkillWrite, MaxAppendBytes)
		}
	default:
		return fmt.Errorf("%w: unknown skill (want %s or %s)", ErrBadRequest, SkillRead, SkillWrite)
	}
	return nil
}
