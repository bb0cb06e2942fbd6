package console

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/revocation"
)

const (
	sessionCookie = "capgate_console"
	loginCookie   = "capgate_console_login"
	// sessionTTL is how long a sign-in lasts.
	sessionTTL = 8 * time.Hour
	// loginTTL is how long a sign-in may take, from the login page to the
	// form post or the OIDC callback.
	loginTTL = 10 * time.Minute
	// maxCookie bounds a cookie value before any decoding.
	maxCookie = 4096
)

// errCookie is any cookie that is absent, expired or does not open.
var errCookie = errors.New("console: no valid cookie")

// endedPrefix starts the revocation id that marks a console session as
// signed out.
const endedPrefix = "console_session:"

// endSession marks s as signed out in the revocation store, until the
// cookie would have expired anyway. The store is the gateway's: shared by
// every replica through Redis when it has one (each Synced replica holds
// the mark in memory), in memory otherwise. Like a revocation, the mark
// only ever grows.
func (c *Console) endSession(ctx context.Context, s session) error {
	return c.deps.Revocations.Revoke(ctx, endedPrefix+s.SID, time.Unix(s.Expires, 0).Add(time.Minute))
}

// sessionEnded reports whether s was signed out. An error means the store
// cannot tell; the caller fails closed.
func (c *Console) sessionEnded(ctx context.Context, s session) (bool, error) {
	res, err := c.deps.Revocations.Check(ctx, revocation.Query{IDs: []string{endedPrefix + s.SID}})
	return res.Revoked, err
}

// session is a signed-in operator, sealed in the session cookie.
type session struct {
	Principal string   `json:"p"`
	Issuer    string   `json:"i"`
	Groups    []string `json:"g,omitempty"`
	// SID is random; the CSRF token is bound to it.
	SID     string `json:"s"`
	Expires int64  `json:"e"`
	// Role is the role held at sign-in: a session whose principal holds
	// less on a later request (a reloaded policy no longer names them as
	// an approver, say) ends.
	Role role `json:"r,omitempty"`
}

// pending is a sign-in in progress, sealed in the login cookie: the nonce
// its login form's CSRF token is bound to and, for OIDC, the state, the ID
// token nonce and the PKCE verifier.
type pending struct {
	Nonce    string `json:"n"`
	State    string `json:"s,omitempty"`
	IDNonce  string `json:"o,omitempty"`
	Verifier string `json:"v,omitempty"`
	Expires  int64  `json:"e"`
}

// sealer seals cookies with AES-256-GCM and derives CSRF tokens, each with
// its own key derived from the session key.
type sealer struct {
	aead cipher.AEAD
	csrf []byte
}

func newSealer(key []byte) (*sealer, error) {
	if len(key) < 32 {
		return nil, errors.New("console: the session key must be at least 32 bytes")
	}
	enc, err := hkdf.Key(sha256.New, key, nil, "capgate console cookies", 32)
	if err != nil {
		return nil, err
	}
	csrf, err := hkdf.Key(sha256.New, key, nil, "capgate console csrf", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(enc)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead, csrf: csrf}, nil
}

// seal encrypts v for the cookie name (bound as additional data, so a
// value cannot be moved from one cookie to another).
func (s *sealer) seal(name string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, b, []byte(name))), nil
}

// open reads the cookie name of r into v.
func (s *sealer) open(r *http.Request, name string, v any) error {
	c, err := r.Cookie(name)
	if err != nil || len(c.Value) > maxCookie {
		return errCookie
	}
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return errCookie
	}
	n := s.aead.NonceSize()
	b, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(name))
	if err != nil || json.Unmarshal(b, v) != nil {
		return errCookie
	}
	return nil
}

// token returns the CSRF token of a purpose ("session" or "login") bound
// to a random value only the cookie holds.
func (s *sealer) token(purpose, bound string) string {
	m := hmac.New(sha256.New, s.csrf)
	m.Write([]byte(purpose + "\x00" + bound))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkToken reports whether got is the CSRF token of purpose and bound.
func (s *sealer) checkToken(purpose, bound, got string) bool {
	return bound != "" && hmac.Equal([]byte(got), []byte(s.token(purpose, bound)))
}

// setCookie writes a sealed cookie for the console's path: HttpOnly,
// SameSite=Lax (the OIDC callback is a cross-site top-level navigation that
// must carry the login cookie), and Secure (see secure).
func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/console/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, Secure: c.secure(r), SameSite: http.SameSiteLaxMode,
	})
}

func (c *Console) clearCookie(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: "", Path: "/console/", MaxAge: -1,
		HttpOnly: true, Secure: c.secure(r), SameSite: http.SameSiteLaxMode,
	})
}

// secure says whether r's cookies carry the Secure flag: always, unless
// the config says browsers reach the console over plain http on
// loopback (Config.InsecureCookies); even then, when r comes straight from
// a trusted proxy (Config.TrustedProxies) whose X-Forwarded-Proto says
// https. The Host header plays no part (a TLS-terminating proxy may
// forward any), and no header takes Secure away.
func (c *Console) secure(r *http.Request) bool {
	if !c.cfg.InsecureCookies {
		return true
	}
	if len(c.cfg.TrustedProxies) == 0 {
		return false
	}
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !slices.ContainsFunc(c.cfg.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(peer.Addr().WithZone("").Unmap()) }) {
		return false
	}
	for _, h := range r.Header.Values("X-Forwarded-Proto") {
		for _, v := range strings.Split(h, ",") {
			if strings.EqualFold(strings.TrimSpace(v), "https") {
				return true
			}
		}
	}
	return false
}

// loopback reports whether host (with an optional port) is a loopback
// name or address.
func loopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// randomText returns 128 bits or more of randomness as text.
func randomText() string { return rand.Text() }
