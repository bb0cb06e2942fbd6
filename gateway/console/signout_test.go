package console_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation"
	"github.com/capgate/capgate/revocation/redistest"
)

// sessionCookie returns the console session cookie b holds.
func (b *browser) sessionCookie() *http.Cookie {
	b.t.Helper()
	u, _ := url.Parse(b.url + "/console/")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "capgate_console" {
			return c
		}
	}
	b.t.Fatal("no session cookie")
	return nil
}

// replay sends a request to srvURL with only the given cookie, as an
// attacker holding a copy of it would, without following redirects.
func replay(t *testing.T, method, srvURL, path string, form url.Values, c *http.Cookie) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srvURL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(c)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// syncedStore is a replica's revocation store on srv.
func syncedStore(t *testing.T, srv *redistest.Server) revocation.Store {
	t.Helper()
	r, err := revocation.NewRedis(t.Context(), srv.NewClient(nil), revocation.RedisOptions{Timeout: 2 * time.Second, InitGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s, err := revocation.NewSynced(t.Context(), r, revocation.SyncedOptions{MaxStaleness: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSignOutEndsTheSessionEverywhere: after POST /console/logout on one
// replica, a copy of the session cookie kept from before reads no page
// and decides or revokes nothing, on that replica or another sharing its
// session key and revocation store (memory: one process; Redis: two
// replicas).
func TestSignOutEndsTheSessionEverywhere(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	for name, stores := range map[string]func(t *testing.T) (a, b revocation.Store){
		"memory": func(*testing.T) (revocation.Store, revocation.Store) {
			m := revocation.NewMemory(revocation.MemoryOptions{})
			return m, m
		},
		"redis, two replicas": func(t *testing.T) (revocation.Store, revocation.Store) {
			srv := redistest.Start(t)
			return syncedStore(t, srv), syncedStore(t, srv)
		},
	} {
		t.Run(name, func(t *testing.T) {
			ra, rb := stores(t)
			a := newFixture(t, fixtureOptions{sessionKey: key, revocations: ra})
			b := newFixture(t, fixtureOptions{sessionKey: key, revocations: rb})
			br := newBrowser(t, a)
			_, page := br.signIn(adminKey)
			token, kept := csrf(t, page), br.sessionCookie()
			if code, _ := replay(t, http.MethodGet, b.srv.URL, "/console/capabilities", nil, kept); code != http.StatusOK {
				t.Fatalf("the other replica does not open the session before sign-out: %d", code)
			}
			if code, page := br.post("/console/logout", url.Values{"csrf": {token}}); code != http.StatusOK || !strings.Contains(page, "Sign in") {
				t.Fatalf("sign-out: %d\n%s", code, page)
			}
			for _, srv := range []string{a.srv.URL, b.srv.URL} {
				for _, tc := range []struct {
					method, path string
					form         url.Values
				}{
					{http.MethodGet, "/console/approvals", nil},
					{http.MethodGet, "/console/capabilities", nil},
					{http.MethodPost, "/console/revoke", url.Values{"csrf": {token}, "id": {a.chain[0].CapabilityID}}},
					{http.MethodPost, "/console/approvals", url.Values{"csrf": {token}, "id": {a.pending}, "decision": {"deny"}, "reason": {"replayed"}}},
				} {
					code, loc := replay(t, tc.method, srv, tc.path, tc.form, kept)
					if code != http.StatusSeeOther || loc != "/console/login" {
						t.Errorf("%s %s%s with the signed-out cookie: %d %q, want a redirect to sign in", tc.method, srv, tc.path, code, loc)
					}
				}
			}
			if got := a.decision(t, a.pending); got != "pending" {
				t.Errorf("a replayed cookie decided: %s", got)
			}
			if got := a.state(t, 0); got != "live" {
				t.Errorf("a replayed cookie revoked: the root is %s", got)
			}
		})
	}
}

// failingStore is a revocation store that cannot answer.
type failingStore struct{ revocation.Store }

var errStoreDown = errors.New("store down")

func (failingStore) Check(context.Context, revocation.Query) (revocation.Result, error) {
	return revocation.Result{}, errStoreDown
}

func (failingStore) Revoke(context.Context, string, time.Time) error { return errStoreDown }

// TestSessionCheckFailsClosed: when the store cannot say whether the
// session was signed out, no page opens and no sign-out is pretended.
func TestSessionCheckFailsClosed(t *testing.T) {
	f := newFixture(t, fixtureOptions{revocations: failingStore{revocation.NewMemory(revocation.MemoryOptions{})}})
	code, page := newBrowser(t, f).signIn(adminKey)
	if code != http.StatusServiceUnavailable || !strings.Contains(page, "cannot check the session") {
		t.Fatalf("with the store down: %d\n%s", code, page)
	}
}
