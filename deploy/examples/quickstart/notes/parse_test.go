package notes

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
)

func TestParseMessage(t *testing.T) {
	msg := func(parts ...a2a.Part) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleUser, parts...) }
	text := func(s string) *a2a.Message { return msg(a2a.TextPart{Text: s}) }
	data := func(d map[string]any) *a2a.Message { return msg(a2a.DataPart{Data: d}) }
	tests := []struct {
		name    string
		msg     *a2a.Message
		want    command
		wantErr error
	}{
		{"read", text("read notes/a"), command{skill: SkillRead, ids: []string{"notes/a"}}, nil},
		{"read, any case, several", text("  READ notes/a\tnotes/b\n"), command{skill: SkillRead, ids: []string{"notes/a", "notes/b"}}, nil},
		{"bare id", text("notes/a"), command{skill: SkillRead, ids: []string{"notes/a"}}, nil},
		{"append with colon", text("append notes/a: buy milk "), command{skill: SkillWrite, ids: []string{"notes/a"}, text: "buy milk"}, nil},
		{"append without space", text("append notes/a:milk"), command{skill: SkillWrite, ids: []string{"notes/a"}, text: "milk"}, nil},
		{"write with space", text("write notes/a milk"), command{skill: SkillWrite, ids: []string{"notes/a"}, text: "milk"}, nil},
		{"text parts join", msg(a2a.TextPart{Text: "read"}, a2a.TextPart{Text: "notes/a"}), command{skill: SkillRead, ids: []string{"notes/a"}}, nil},
		{"data read", data(map[string]any{"resourceId": "notes/a"}), command{skill: SkillRead, ids: []string{"notes/a"}}, nil},
		{"data read many", data(map[string]any{"skill": SkillRead, "resourceIds": []any{"notes/a", "notes/b"}}), command{skill: SkillRead, ids: []string{"notes/a", "notes/b"}}, nil},
		{"data write inferred", data(map[string]any{"resourceId": "notes/a", "text": "x"}), command{skill: SkillWrite, ids: []string{"notes/a"}, text: "x"}, nil},
		{"data wins over text", msg(a2a.TextPart{Text: "append notes/b: y"}, a2a.DataPart{Data: map[string]any{"resourceId": "notes/a"}}),
			command{skill: SkillRead, ids: []string{"notes/a"}}, nil},

		{"no message", nil, command{}, ErrBadRequest},
		{"empty", msg(), command{}, ErrBadRequest},
		{"file only", msg(a2a.FilePart{File: a2a.FileURI{URI: "https://example.com/x"}}), command{}, ErrBadRequest},
		{"two data parts", msg(a2a.DataPart{Data: map[string]any{"resourceId": "notes/a"}}, a2a.DataPart{Data: map[string]any{"resourceId": "notes/b"}}), command{}, ErrBadRequest},
		{"unknown verb", text("delete notes/a"), command{}, ErrBadRequest},
		{"read nothing", text("read"), command{}, ErrBadRequest},
		{"append nothing", text("append notes/a:"), command{}, ErrBadRequest},
		{"append two notes", data(map[string]any{"skill": SkillWrite, "resourceIds": []any{"notes/a", "notes/b"}, "text": "x"}), command{}, ErrBadRequest},
		{"append too much", text("append notes/a: " + strings.Repeat("x", MaxAppendBytes+1)), command{}, ErrBadRequest},
		{"read too many", text("read " + strings.Repeat("notes/a ", 1) + manyIDs(MaxReadNotes)), command{}, ErrBadRequest},
		{"read with text", data(map[string]any{"skill": SkillRead, "resourceId": "notes/a", "text": "x"}), command{}, ErrBadRequest},
		{"named twice", text("read notes/a notes/a"), command{}, ErrBadRequest},
		{"id and ids", data(map[string]any{"resourceId": "notes/a", "resourceIds": []any{"notes/b"}}), command{}, ErrBadRequest},
		{"id not a string", data(map[string]any{"resourceId": 7.0}), command{}, ErrBadRequest},
		{"ids not strings", data(map[string]any{"resourceIds": []any{"notes/a", 7.0}}), command{}, ErrBadRequest},
		{"ids not a list", data(map[string]any{"resourceIds": "notes/a"}), command{}, ErrBadRequest},
		{"skill not a string", data(map[string]any{"skill": true, "resourceId": "notes/a"}), command{}, ErrBadRequest},
		{"unknown skill", data(map[string]any{"skill": "notes.delete", "resourceId": "notes/a"}), command{}, ErrBadRequest},
		{"unknown member", data(map[string]any{"resourceId": "notes/a", "resourceHandle": "rh_1"}), command{}, ErrBadRequest},
		{"handle instead of id", data(map[string]any{"resourceId": "rh_1"}), command{}, ErrInvalidID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMessage(tt.msg)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got.skill != tt.want.skill || !slices.Equal(got.ids, tt.want.ids) || got.text != tt.want.text {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func manyIDs(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "notes/n" + strings.Repeat("x", i+1)
	}
	return strings.Join(ids, " ")
}

func TestValidID(t *testing.T) {
	tests := []struct {
		id      string
		wantErr error
	}{
		{"notes/alice-groceries", nil},
		{"notes/a.b_c/d", nil},
		{"0/1", nil},
		{"", ErrInvalidID},
		{"notes", ErrInvalidID},
		{"notes/", ErrInvalidID},
		{"notes//a", ErrInvalidID},
		{"/notes/a", ErrInvalidID},
		{"-notes/a", ErrInvalidID},
		{"notes/../a", ErrInvalidID},
		{"Notes/a", ErrInvalidID},
		{"notes/a b", ErrInvalidID},
		{"notes/é", ErrInvalidID},
		{"notes/" + strings.Repeat("a", MaxIDBytes), ErrInvalidID},
	}
	for _, tt := range tests {
		if err := ValidID(tt.id); !errors.Is(err, tt.wantErr) {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, err, tt.wantErr)
		}
	}
}

// FuzzParseText: whatever the text, parseMessage either fails with
// ErrBadRequest or returns a command that passes validate, naming only
// valid ids; it never panics, and an error never quotes the text.
func FuzzParseText(f *testing.F) {
	for _, s := range []string{"read notes/a", "append notes/a: x", "notes/a notes/b", "write notes/a", "read ../x", "", "append :", "READ\tnotes/a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseMessage(a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: s}))
		if err != nil {
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("error %v is not ErrBadRequest", err)
			}
			if len(s) > 8 && strings.Contains(err.Error(), s) {
				t.Fatalf("error %q quotes the message", err)
			}
			return
		}
		if c.validate() != nil {
			t.Fatalf("command %+v does not validate", c)
		}
		for _, id := range c.ids {
			if ValidID(id) != nil {
				t.Fatalf("invalid id %q accepted", id)
			}
		}
	})
}
