package authn

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Defaults applied by New to a zero IssuerConfig field.
const (
	// DefaultUserClaim is the claim naming a human user.
	DefaultUserClaim = "email"
	// DefaultAgentClaim is the claim naming an agent when the user claim is
	// absent.
	DefaultAgentClaim = "azp"
	// DefaultGroupsClaim is the claim listing the principal's groups.
	DefaultGroupsClaim = "groups"
	// DevIssuer is the Principal.Issuer of a principal authenticated by a
	// dev API key.
	DevIssuer = "dev"
)

// DefaultAlgorithms returns the signing algorithms accepted when
// IssuerConfig.Algorithms is empty. A fresh slice is returned each time.
func DefaultAlgorithms() []string { return []string{"RS256", "ES256", "EdDSA"} }

// asymmetricAlgorithms is every JWS algorithm an issuer may be configured
// with: public-key signatures only, never HMAC and never "none".
var asymmetricAlgorithms = map[string]bool{
	"RS256": true, "RS384": true, "RS512": true,
	"PS256": true, "PS384": true, "PS512": true,
	"ES256": true, "ES384": true, "ES512": true,
	"EdDSA": true,
}

// IssuerConfig is one trusted OIDC issuer.
type IssuerConfig struct {
	// Issuer is the issuer URL, compared byte for byte with the token's iss
	// (a trailing slash matters). It must be https; http is allowed only
	// for loopback hosts (tests, local IdPs).
	Issuer string `yaml:"issuer" json:"issuer"`
	// Audience must appear in the token's aud. Required.
	Audience string `yaml:"audience" json:"audience"`
	// Algorithms lists the accepted signing algorithms; empty means
	// DefaultAlgorithms. Only asymmetric algorithms are allowed.
	Algorithms []string `yaml:"algorithms,omitempty" json:"algorithms,omitempty"`
	// UserClaim names the claim that makes a "user:<value>" principal;
	// empty means DefaultUserClaim.
	UserClaim string `yaml:"user_claim,omitempty" json:"user_claim,omitempty"`
	// RequireEmailVerified refuses a token carrying the user claim unless
	// its email_verified claim is true.
	RequireEmailVerified bool `yaml:"require_email_verified,omitempty" json:"require_email_verified,omitempty"`
	// AgentClaim names the claim that makes an "agent:<value>" principal
	// when the user claim is absent; empty means DefaultAgentClaim.
	AgentClaim string `yaml:"agent_claim,omitempty" json:"agent_claim,omitempty"`
	// GroupsClaim names the claim holding the groups (an array of strings,
	// or a single string); empty means DefaultGroupsClaim.
	GroupsClaim string `yaml:"groups_claim,omitempty" json:"groups_claim,omitempty"`
}

// DevKey maps the SHA-256 hash of a dev API key (quickstart only) to a
// principal. The key itself is never stored.
type DevKey struct {
	// Hash is "sha256:" followed by the 64 hex digits of the key's SHA-256,
	// as returned by HashKey.
	Hash string `yaml:"hash" json:"hash"`
	// Principal is "user:<name>" or "agent:<name>".
	Principal string `yaml:"principal" json:"principal"`
	// Groups are the principal's groups.
	Groups []string `yaml:"groups,omitempty" json:"groups,omitempty"`
}

// HashKey returns the DevKey.Hash of a dev API key: "sha256:<hex>".
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ConfigError is one configuration problem at a field path of the gateway
// config file, such as oidc[1].audience; it matches ErrInvalidConfig.
type ConfigError struct {
	// Path is the field path.
	Path string
	// Msg explains the problem.
	Msg string
}

func (e *ConfigError) Error() string { return e.Path + ": " + e.Msg }

// Is reports whether target is ErrInvalidConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

func problem(path, format string, args ...any) error {
	return &ConfigError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// prefixed returns problems with prefix added to each field path.
func prefixed(prefix string, problems []error) []error {
	out := make([]error, 0, len(problems))
	for _, p := range problems {
		var ce *ConfigError
		if errors.As(p, &ce) {
			p = &ConfigError{Path: prefix + ce.Path, Msg: ce.Msg}
		}
		out = append(out, p)
	}
	return out
}

func (c IssuerConfig) problems() []error {
	var ps []error
	if err := checkFetchURL(c.Issuer); err != nil {
		ps = append(ps, problem("issuer", "%v", err))
	}
	if strings.TrimSpace(c.Audience) == "" {
		ps = append(ps, problem("audience", "is required: tokens for other audiences must be refused"))
	}
	for i, alg := range c.Algorithms {
		if msg := algorithmProblem(alg); msg != "" {
			ps = append(ps, problem(fmt.Sprintf("algorithms[%d]", i), "%s", msg))
		}
	}
	claims := []struct{ path, v string }{
		{"user_claim", c.UserClaim}, {"agent_claim", c.AgentClaim}, {"groups_claim", c.GroupsClaim},
	}
	for _, cl := range claims {
		if cl.v != "" && strings.TrimSpace(cl.v) != cl.v {
			ps = append(ps, problem(cl.path, "must not have surrounding spaces"))
		}
	}
	return ps
}

func algorithmProblem(alg string) string {
	switch {
	case asymmetricAlgorithms[alg]:
		return ""
	case strings.EqualFold(alg, "none"):
		return fmt.Sprintf("%q is refused: unsigned tokens are never accepted", alg)
	case strings.HasPrefix(strings.ToUpper(alg), "HS"):
		return fmt.Sprintf("%q is refused: only asymmetric algorithms are allowed", alg)
	default:
		return fmt.Sprintf("%q is not a supported asymmetric algorithm", alg)
	}
}

// checkFetchURL accepts an issuer URL: a secure URL (see secureURL) with
// no user info, query or fragment.
func checkFetchURL(raw string) error {
	if raw == "" {
		return errors.New("must not be empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("must be a valid URL")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return errors.New("must not carry user info, a query or a fragment")
	}
	return secureURL(u)
}

// secureURL accepts an absolute https URL, or an http URL whose host is
// loopback.
func secureURL(u *url.URL) error {
	switch {
	case u.Host == "" || u.Hostname() == "":
		return errors.New("must be an absolute URL with a host")
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return errors.New("must use https (http is allowed only for loopback hosts)")
	default:
		return fmt.Errorf("scheme %q is not allowed: must be https", u.Scheme)
	}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (k DevKey) problems() []error {
	var ps []error
	if _, err := parseHash(k.Hash); err != nil {
		ps = append(ps, problem("hash", "%v", err))
	}
	if err := checkPrincipalID(k.Principal); err != nil {
		ps = append(ps, problem("principal", "%v", err))
	}
	for i, g := range k.Groups {
		if g == "" || strings.TrimSpace(g) != g {
			ps = append(ps, problem(fmt.Sprintf("groups[%d]", i), "must be a non-empty name without surrounding spaces"))
		}
	}
	return ps
}

// parseHash decodes "sha256:<64 hex digits>" (either case) to the digest.
func parseHash(h string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	hexPart, ok := strings.CutPrefix(h, "sha256:")
	if !ok {
		return sum, errors.New(`must be "sha256:" followed by 64 hex digits (capgate keys hash KEY prints one)`)
	}
	b, err := hex.DecodeString(hexPart)
	if err != nil || len(b) != sha256.Size {
		return sum, errors.New("must hold exactly 64 hex digits after \"sha256:\"")
	}
	copy(sum[:], b)
	return sum, nil
}

func checkPrincipalID(id string) error {
	for _, prefix := range []string{"user:", "agent:"} {
		if name, ok := strings.CutPrefix(id, prefix); ok {
			if err := checkName(name); err != nil {
				return fmt.Errorf("name after %q %w", prefix, err)
			}
			return nil
		}
	}
	return fmt.Errorf("%q must start with \"user:\" or \"agent:\"", id)
}

// ValidateConfig reports every problem in a full authn configuration:
// each issuer and dev key, duplicate issuers and duplicate dev-key hashes.
// Field paths follow the gateway config file: "oidc[i].…" and
// "dev_keys[i].…".
func ValidateConfig(issuers []IssuerConfig, devKeys []DevKey) error {
	var ps []error
	seenIss := map[string]int{}
	for i, c := range issuers {
		path := fmt.Sprintf("oidc[%d].", i)
		ps = append(ps, prefixed(path, c.problems())...)
		if j, dup := seenIss[c.Issuer]; dup && c.Issuer != "" {
			ps = append(ps, problem(path+"issuer", "duplicates oidc[%d].issuer", j))
		} else {
			seenIss[c.Issuer] = i
		}
	}
	seenHash := map[[sha256.Size]byte]int{}
	for i, k := range devKeys {
		path := fmt.Sprintf("dev_keys[%d].", i)
		ps = append(ps, prefixed(path, k.problems())...)
		sum, err := parseHash(k.Hash)
		if err != nil {
			continue
		}
		if j, dup := seenHash[sum]; dup {
			ps = append(ps, problem(path+"hash", "duplicates dev_keys[%d].hash", j))
		} else {
			seenHash[sum] = i
		}
	}
	return errors.Join(ps...)
}
