package approval_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
)

// downList is a backend whose List reads every record, then fails.
type downList struct{ approval.Backend }

func (d downList) List(ctx context.Context, keep func(*approval.Request) bool, limit int) ([]approval.Request, error) {
	_, _ = d.Backend.List(ctx, keep, limit)
	return nil, fmt.Errorf("%w: connection refused", approval.ErrUnavailable)
}

// flip rewrites a stored request's status without the key.
func flip(ctx context.Context, t *testing.T, raw approval.Backend, id string, to approval.Status) {
	t.Helper()
	if _, err := raw.Update(ctx, id, func(r *approval.Request) (bool, error) {
		r.Status = to
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestListNamesForgedRecords: a sealed listing returns every request that
// verifies and names, in a *ForgedError, those that do not, whatever
// status they claim and without counting them toward the limit. A backend
// that fails fails the listing, whatever it read.
func TestListNamesForgedRecords(t *testing.T) {
	// ids[0] is the oldest of three requests; want* index into ids, or
	// name "apr_unsealed", a record written without the key.
	tests := map[string]struct {
		tamper     func(ctx context.Context, t *testing.T, raw approval.Backend, ids []string)
		down       bool
		filter     approval.Filter
		want       []int
		wantForged []string
		wantErr    error
	}{
		"all verify": {want: []int{2, 1, 0}},
		"a status flipped": {
			tamper: func(ctx context.Context, t *testing.T, raw approval.Backend, ids []string) {
				flip(ctx, t, raw, ids[1], approval.StatusApproved)
			},
			want: []int{2, 0}, wantForged: []string{"1"}, wantErr: approval.ErrForged,
		},
		"an unsealed record": {
			tamper: func(ctx context.Context, t *testing.T, raw approval.Backend, _ []string) {
				r := sample()
				r.ID, r.Status, r.CreatedAt, r.Deadline = "apr_unsealed", approval.StatusApproved, time.Now(), time.Now().Add(time.Hour)
				if err := raw.Put(ctx, r); err != nil {
					t.Fatal(err)
				}
			},
			want: []int{2, 1, 0}, wantForged: []string{"apr_unsealed"}, wantErr: approval.ErrForged,
		},
		"named whatever status it claims": {
			tamper: func(ctx context.Context, t *testing.T, raw approval.Backend, ids []string) {
				flip(ctx, t, raw, ids[0], approval.StatusDenied)
				flip(ctx, t, raw, ids[2], approval.StatusDenied)
			},
			filter: approval.Filter{Status: approval.StatusPending},
			want:   []int{1}, wantForged: []string{"0", "2"}, wantErr: approval.ErrForged,
		},
		"forged records do not count toward the limit": {
			tamper: func(ctx context.Context, t *testing.T, raw approval.Backend, ids []string) {
				flip(ctx, t, raw, ids[2], approval.StatusApproved)
			},
			filter: approval.Filter{Limit: 2},
			want:   []int{1, 0}, wantForged: []string{"2"}, wantErr: approval.ErrForged,
		},
		"backend down": {
			tamper: func(ctx context.Context, t *testing.T, raw approval.Backend, ids []string) {
				flip(ctx, t, raw, ids[1], approval.StatusApproved)
			},
			down: true, wantErr: approval.ErrUnavailable,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{t: time.Now()}
			raw := approval.NewMemory(clk.Now)
			var backend approval.Backend = raw
			if tc.down {
				backend = downList{raw}
			}
			sealed, err := approval.Sealed(backend, recordKey)
			if err != nil {
				t.Fatal(err)
			}
			d := approval.NewDesk(sealed, approval.Options{Now: clk.Now})
			up, err := approval.Sealed(raw, recordKey)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i := range 3 {
				s := sample()
				s.Purpose = fmt.Sprintf("%s, part %d", s.Purpose, i)
				r, err := approval.NewDesk(up, approval.Options{Now: clk.Now}).Create(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, r.ID)
				clk.add(time.Second)
			}
			if tc.tamper != nil {
				tc.tamper(ctx, t, raw, ids)
			}
			got, err := d.List(ctx, tc.filter)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			var gotIDs, want []string
			for _, r := range got {
				gotIDs = append(gotIDs, r.ID)
			}
			for _, i := range tc.want {
				want = append(want, ids[i])
			}
			if !slices.Equal(gotIDs, want) {
				t.Errorf("listed %v, want %v", gotIDs, want)
			}
			var wantForged []string
			for _, f := range tc.wantForged {
				if f != "apr_unsealed" {
					f = ids[f[0]-'0']
				}
				wantForged = append(wantForged, f)
			}
			slices.Sort(wantForged)
			forged, partial := approval.Partial(err)
			if !slices.Equal(forged, wantForged) || partial != (len(wantForged) > 0) {
				t.Errorf("Partial = %v %v, want %v", forged, partial, wantForged)
			}
		})
	}
}

// TestPartial: only an error that is nothing but forged records is a
// partial answer; joined with anything else, the listing failed.
func TestPartial(t *testing.T) {
	forged := &approval.ForgedError{IDs: []string{"apr_a"}}
	tests := map[string]struct {
		err     error
		wantIDs []string
	}{
		"nil":                 {err: nil},
		"forged":              {err: forged, wantIDs: []string{"apr_a"}},
		"wrapped":             {err: fmt.Errorf("listing: %w", forged), wantIDs: []string{"apr_a"}},
		"joined with forged":  {err: errors.Join(forged, &approval.ForgedError{IDs: []string{"apr_b"}}), wantIDs: []string{"apr_a", "apr_b"}},
		"joined with outage":  {err: errors.Join(forged, approval.ErrUnavailable)},
		"joined with another": {err: errors.Join(forged, context.Canceled)},
		"bare sentinel":       {err: approval.ErrForged},
		"no ids":              {err: &approval.ForgedError{}},
		"unavailable":         {err: approval.ErrUnavailable},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ids, ok := approval.Partial(tc.err)
			if !slices.Equal(ids, tc.wantIDs) || ok != (tc.wantIDs != nil) {
				t.Errorf("Partial = %v %v, want %v", ids, ok, tc.wantIDs)
			}
			if tc.wantIDs != nil && !errors.Is(tc.err, approval.ErrForged) {
				t.Errorf("%v is not ErrForged", tc.err)
			}
		})
	}
}

func TestForgedErrorMessage(t *testing.T) {
	var ids []string
	for i := range 12 {
		ids = append(ids, fmt.Sprintf("apr_%02d", i))
	}
	tests := map[string]struct {
		ids  []string
		want string
	}{
		"one":  {ids[:1], "approval: 1 stored request fails its MAC: apr_00"},
		"many": {ids, "approval: 12 stored requests fail their MAC: apr_00, apr_01, apr_02, apr_03, apr_04, apr_05, apr_06, apr_07, apr_08, apr_09 and 2 more"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := (&approval.ForgedError{IDs: tc.ids}).Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}
