package notes

import (
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
)

// TestRefusesWhatTheGatewayDidNotVouchFor: whatever a message asks for in
// its text or its data part, the agent acts only within the operations
// the gateway vouched for, and a refused action changes no note.
func TestRefusesWhatTheGatewayDidNotVouchFor(t *testing.T) {
	const groceries = "milk\neggs\nbread"
	tests := []struct {
		name      string
		vouched   string
		params    *a2a.MessageSendParams
		wantState a2a.TaskState
		wantNote  string
	}{
		{"append by text under read", OperationRead, textMessage("append notes/alice-groceries: PWNED"), a2a.TaskStateFailed, groceries},
		{"write by data part under read", OperationRead,
			dataMessage(map[string]any{"skill": SkillWrite, "resourceId": "notes/alice-groceries", "text": "PWNED"}), a2a.TaskStateFailed, groceries},
		{"data part naming no skill, with text, under read", OperationRead,
			dataMessage(map[string]any{"resourceId": "notes/alice-groceries", "text": "PWNED"}), a2a.TaskStateFailed, groceries},
		{"read under write only", OperationWrite, textMessage("read notes/alice-groceries"), a2a.TaskStateFailed, groceries},
		{"no capability", "", textMessage("read notes/alice-groceries"), a2a.TaskStateFailed, groceries},
		{"read under read", OperationRead, textMessage("read notes/alice-groceries"), a2a.TaskStateCompleted, groceries},
		{"append under write", OperationWrite, textMessage("append notes/alice-groceries: butter"), a2a.TaskStateCompleted, groceries + "\nbutter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serveVouched(t, Options{}, tt.vouched)
			task := s.send(t, tt.params)
			if task.Status.State != tt.wantState {
				t.Errorf("state %q (%s), want %q", task.Status.State, statusText(task), tt.wantState)
			}
			if tt.wantState == a2a.TaskStateFailed && len(task.Artifacts) != 0 {
				t.Errorf("a refused action answered artifacts: %+v", task.Artifacts)
			}
			if n, _ := s.agent.Note("notes/alice-groceries"); n.Text != tt.wantNote {
				t.Errorf("stored note %q, want %q", n.Text, tt.wantNote)
			}
		})
	}
}
