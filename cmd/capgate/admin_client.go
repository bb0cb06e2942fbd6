package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// adminKeyEnv is the environment variable the admin commands take their
// credential from when --key is not given.
const adminKeyEnv = "CAPGATE_ADMIN_KEY"

// adminFlags are the flags every command of the admin API shares.
type adminFlags struct {
	admin, key *string
	json       *bool
	// keyHint says which key the quickstart world takes, for the message
	// when no credential was given.
	keyHint string
}

// adminAnswer is the body of an admin API answer of status 200.
type adminAnswer []byte

// call sends one request to the admin API with the credential of --key or
// $CAPGATE_ADMIN_KEY and returns the answer. A missing credential is a
// usage error naming both; a refused one names where it came from.
func (af adminFlags) call(ctx context.Context, method, path string, body []byte, e env) (adminAnswer, error) {
	base, err := adminURL(*af.admin)
	if err != nil {
		return nil, err
	}
	key, source := *af.key, "--key"
	if key == "" {
		key, source = e.getenv(adminKeyEnv), "$"+adminKeyEnv
	}
	if key == "" {
		return nil, usagef("no credential for the admin API: pass --key KEY or set %s (%s)", adminKeyEnv, af.keyHint)
	}
	status, out, err := adminRequest(ctx, method, base+path, key, body)
	if err != nil {
		return nil, fmt.Errorf("%w (is the gateway's admin listener at %s? pass --admin URL)", err, base)
	}
	switch status {
	case http.StatusOK:
		return out, nil
	case http.StatusUnauthorized:
		return nil, fmt.Errorf("the admin API at %s does not accept the credential from %s (HTTP 401); "+
			"pass the right one with --key KEY or %s (%s)", base, source, adminKeyEnv, af.keyHint)
	case http.StatusForbidden:
		return nil, fmt.Errorf("HTTP 403: %s (the credential from %s authenticates, but may not do this)", answerError(out), source)
	}
	return nil, fmt.Errorf("HTTP %d: %s", status, answerError(out))
}

// print writes the answer: as one JSON line with --json, else as human
// renders it.
func (af adminFlags) print(w io.Writer, out adminAnswer, human func(io.Writer, adminAnswer) error) error {
	if *af.json {
		_, err := fmt.Fprintf(w, "%s\n", bytes.TrimSpace(out))
		return err
	}
	return human(w, out)
}

// adminRequest sends one request and returns the status and body of the
// answer.
func adminRequest(ctx context.Context, method, target, key string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, out, err
}

// answerError is the "error" member of an admin API error answer, or the
// answer itself when it has none.
func answerError(out []byte) string {
	var a struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(out, &a) == nil && a.Error != "" {
		return a.Error
	}
	return string(bytes.TrimSpace(out))
}

// adminURL accepts http(s)://HOST:PORT[/prefix] or a bare HOST:PORT, which
// means plain http.
func adminURL(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", usagef("--admin %q: want the admin listener as http://HOST:PORT or HOST:PORT", s)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}
