package interop_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
)

// TestGoV03UntranslatableRefused: a v0.3 call v1.0 cannot express (a
// tasks/get with metadata, which v1.0's GetTask has no place for) is
// refused with the member named, and the agent receives nothing.
func TestGoV03UntranslatableRefused(t *testing.T) {
	w := startWorld(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, ctx := goClientFor(ctx, t, w, goV1Agent)
	_, err := c.GetTask(ctx, &a2a.TaskQueryParams{ID: "t-1", Metadata: map[string]any{"trace": "x"}})
	var ae *a2a.Error
	if !errors.As(err, &ae) || ae.Details["reason"] != "untranslatable_call" || ae.Details["member"] != "params.metadata" {
		t.Fatalf("tasks/get with metadata: want untranslatable_call naming params.metadata, got %T %v", err, err)
	}
	if got := w.goV1.methods(); len(got) != 0 {
		t.Errorf("the agent received %v", got)
	}
}
