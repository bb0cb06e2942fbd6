package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWorldAnswer: the answer is valid JSON whose text is exactly the
// size asked, naming the capability's ids as often as asked.
func TestWorldAnswer(t *testing.T) {
	tests := []struct {
		name    string
		world   World
		wantIDs int
	}{
		{"quickstart", World{}, -1},
		{"1 KiB, no ids", World{AnswerKiB: 1}, 0},
		{"16 KiB, one id per 80 bytes", World{AnswerKiB: 16, IDsPerKiB: IDsPer80Bytes}, 204},
		{"256 KiB, one per KiB", World{AnswerKiB: 256, IDsPerKiB: 1}, 256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.world.answerResult()
			if tt.wantIDs < 0 {
				if res != nil {
					t.Fatalf("the quickstart world has a result of its own: %.80s", res)
				}
				return
			}
			var msg struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			}
			if err := json.Unmarshal(res, &msg); err != nil || len(msg.Parts) != 1 {
				t.Fatalf("result does not decode: %v", err)
			}
			text := msg.Parts[0].Text
			ids := strings.Count(text, answerIDFirst) + strings.Count(text, answerIDOther)
			if len(text) != tt.world.AnswerKiB<<10 || ids < tt.wantIDs-1 || ids > tt.wantIDs+1 {
				t.Fatalf("text of %d bytes with %d ids, want %d bytes and %d ids", len(text), ids, tt.world.AnswerKiB<<10, tt.wantIDs)
			}
		})
	}
}

// TestWorldCatalog: the catalog holds as many resources as asked, the
// two the capability covers first, every id once.
func TestWorldCatalog(t *testing.T) {
	cat := World{Catalog: 1000}.catalog()
	seen := map[string]bool{}
	for _, r := range cat {
		if seen[r.ID] {
			t.Fatalf("id %s twice", r.ID)
		}
		seen[r.ID] = true
	}
	if len(cat) != 1000 || cat[0].ID != answerIDFirst || cat[1].ID != answerIDOther || cat[2].Collection != "archive" {
		t.Fatalf("catalog of %d: %+v ...", len(cat), cat[:3])
	}
	if zero := (World{}); zero.catalog() != nil || len(zero.catalogOr2()) != 2 {
		t.Fatal("the quickstart world has a catalog of its own")
	}
}

// TestWorldValidate: what a World may not be.
func TestWorldValidate(t *testing.T) {
	tests := []struct {
		name    string
		world   World
		wantErr error
	}{
		{"zero", World{}, nil},
		{"sized", World{AnswerKiB: 256, IDsPerKiB: IDsPer80Bytes, Catalog: 10_000}, nil},
		{"negative answer", World{AnswerKiB: -1}, ErrInvalidOptions},
		{"ids without answer", World{IDsPerKiB: 1}, ErrInvalidOptions},
		{"catalog of one", World{Catalog: 1}, ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Options{World: tt.world}.WithDefaults().Validate()
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Validate() = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestRunScale runs the whole matrix, briefly: every row is measured
// without a failed request, every ratio is computed, and every target
// has its check (whether it passes depends on the machine).
func TestRunScale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a lab per world")
	}
	var progress bytes.Buffer
	rep, err := RunScale(context.Background(), Options{Duration: 60 * time.Millisecond, Warmup: -1, Rounds: 1, Progress: &progress})
	if err != nil {
		t.Fatalf("RunScale: %v\n%s", err, progress.String())
	}
	if bad := rep.Problems(); len(bad) > 0 {
		t.Fatalf("problems: %q", bad)
	}
	if len(rep.Scale) != len(ScaleMatrix()) || len(rep.Checks) != 6 {
		t.Fatalf("%d rows, %d checks", len(rep.Scale), len(rep.Checks))
	}
	for _, row := range rep.Scale {
		if row.Capgate.Requests == 0 || row.Ratio <= 0 || !row.Issuance && row.Baseline.Requests == 0 {
			t.Errorf("%s: %+v", row.Name, row)
		}
	}
	var table, js bytes.Buffer
	if err := rep.WriteTable(&table); err != nil || !strings.Contains(table.String(), "catalog 10,000") {
		t.Errorf("table: %v\n%s", err, table.String())
	}
	if err := rep.WriteJSON(&js); err != nil || !json.Valid(js.Bytes()) {
		t.Errorf("json: %v", err)
	}
}
