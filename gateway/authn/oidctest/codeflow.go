package oidctest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// codeFlow is the issuer's authorization-code endpoint with PKCE: the
// user who signs in is whoever SignInAs named last; the browser is sent
// straight back with a code, as if that user had consented.
type codeFlow struct {
	mu     sync.Mutex
	claims map[string]any
	codes  map[string]codeGrant
}

type codeGrant struct {
	clientID, redirect, challenge, nonce string
}

// SignInAs makes /authorize sign in a user with these claims (email,
// groups and so on), added to the ID token /token returns. Until it is
// called, /authorize refuses.
func (i *Issuer) SignInAs(claims map[string]any) {
	i.flow.mu.Lock()
	defer i.flow.mu.Unlock()
	i.flow.claims = maps.Clone(claims)
}

// serveAuthorize answers an authorization request with a code for the
// SignInAs user. Only response_type=code with an S256 PKCE challenge is
// served.
func (i *Issuer) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("client_id") == "" || err != nil || !redirect.IsAbs() {
		http.Error(w, "invalid_request", http.StatusBadRequest)
		return
	}
	i.flow.mu.Lock()
	if i.flow.claims == nil {
		i.flow.mu.Unlock()
		http.Error(w, "access_denied: nobody signs in", http.StatusForbidden)
		return
	}
	code := rand.Text()
	if i.flow.codes == nil {
		i.flow.codes = map[string]codeGrant{}
	}
	i.flow.codes[code] = codeGrant{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"),
		challenge: q.Get("code_challenge"), nonce: q.Get("nonce")}
	i.flow.mu.Unlock()
	back := redirect.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// serveToken redeems a code once, checking the redirect URI, the client
// and the PKCE verifier, and returns an ID token for the client.
func (i *Issuer) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "authorization_code" {
		tokenError(w, "invalid_request")
		return
	}
	clientID, _, ok := r.BasicAuth()
	if !ok {
		clientID = r.PostForm.Get("client_id")
	}
	i.flow.mu.Lock()
	g, found := i.flow.codes[r.PostForm.Get("code")]
	delete(i.flow.codes, r.PostForm.Get("code"))
	claims := maps.Clone(i.flow.claims)
	i.flow.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !found || g.clientID != clientID || g.redirect != r.PostForm.Get("redirect_uri") ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		tokenError(w, "invalid_grant")
		return
	}
	maps.Copy(claims, i.Claims(clientID, time.Now()))
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	idToken, err := i.signQuietly(claims)
	if err != nil {
		http.Error(w, "server_error", http.StatusInternalServerError)
		return
	}
	writeJSON(w, map[string]any{"access_token": rand.Text(), "token_type": "Bearer",
		"expires_in": 3600, "id_token": idToken})
}

// signQuietly signs with the current key, returning an error instead of
// failing the test: it runs on the server's goroutines.
func (i *Issuer) signQuietly(claims map[string]any) (string, error) {
	k := i.current()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: i.alg, Key: k}, nil)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

func tokenError(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}
