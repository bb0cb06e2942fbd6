package authn

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestIssuerConfigValidate(t *testing.T) {
	ok := IssuerConfig{Issuer: "https://idp.example.com", Audience: "capgate"}
	tests := []struct {
		name     string
		mutate   func(*IssuerConfig)
		wantErr  error
		wantPath string
	}{
		{"valid", func(*IssuerConfig) {}, nil, ""},
		{"valid explicit algorithms", func(c *IssuerConfig) { c.Algorithms = []string{"PS256", "ES384", "EdDSA"} }, nil, ""},
		{"http on localhost", func(c *IssuerConfig) { c.Issuer = "http://localhost:8080/realms/x" }, nil, ""},
		{"http on 127.0.0.1", func(c *IssuerConfig) { c.Issuer = "http://127.0.0.1:5556" }, nil, ""},
		{"http on ::1", func(c *IssuerConfig) { c.Issuer = "http://[::1]:5556" }, nil, ""},
		{"HS256", func(c *IssuerConfig) { c.Algorithms = []string{"RS256", "HS256"} }, ErrInvalidConfig, "algorithms[1]: "},
		{"hs512 lower-case", func(c *IssuerConfig) { c.Algorithms = []string{"hs512"} }, ErrInvalidConfig, "algorithms[0]: "},
		{"none", func(c *IssuerConfig) { c.Algorithms = []string{"none"} }, ErrInvalidConfig, "algorithms[0]: "},
		{"NONE", func(c *IssuerConfig) { c.Algorithms = []string{"NONE"} }, ErrInvalidConfig, "algorithms[0]: "},
		{"rs256 lower-case", func(c *IssuerConfig) { c.Algorithms = []string{"rs256"} }, ErrInvalidConfig, "algorithms[0]: "},
		{"http on a public host", func(c *IssuerConfig) { c.Issuer = "http://idp.example.com" }, ErrInvalidConfig, "issuer: "},
		{"http on localhost lookalike", func(c *IssuerConfig) { c.Issuer = "http://localhost.evil.com" }, ErrInvalidConfig, "issuer: "},
		{"http on 0.0.0.0", func(c *IssuerConfig) { c.Issuer = "http://0.0.0.0:80" }, ErrInvalidConfig, "issuer: "},
		{"no scheme", func(c *IssuerConfig) { c.Issuer = "idp.example.com" }, ErrInvalidConfig, "issuer: "},
		{"ftp", func(c *IssuerConfig) { c.Issuer = "ftp://idp.example.com" }, ErrInvalidConfig, "issuer: "},
		{"user info", func(c *IssuerConfig) { c.Issuer = "https://u:p@idp.example.com" }, ErrInvalidConfig, "issuer: "},
		{"query", func(c *IssuerConfig) { c.Issuer = "https://idp.example.com/?tenant=x" }, ErrInvalidConfig, "issuer: "},
		{"empty issuer", func(c *IssuerConfig) { c.Issuer = "" }, ErrInvalidConfig, "issuer: "},
		{"empty audience", func(c *IssuerConfig) { c.Audience = " " }, ErrInvalidConfig, "audience: "},
		{"spaced claim", func(c *IssuerConfig) { c.UserClaim = " email" }, ErrInvalidConfig, "user_claim: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mutate(&c)
			checkConfigErr(t, errors.Join(c.problems()...), tt.wantErr, tt.wantPath)
		})
	}
}

func TestDevKeyValidate(t *testing.T) {
	ok := DevKey{Hash: HashKey("k"), Principal: "user:alice@example.com", Groups: []string{"finance"}}
	tests := []struct {
		name     string
		mutate   func(*DevKey)
		wantErr  error
		wantPath string
	}{
		{"valid", func(*DevKey) {}, nil, ""},
		{"agent", func(k *DevKey) { k.Principal = "agent:summarizer" }, nil, ""},
		{"upper-case hex", func(k *DevKey) { k.Hash = "sha256:" + strings.ToUpper(k.Hash[7:]) }, nil, ""},
		{"upper-case prefix", func(k *DevKey) { k.Hash = "SHA256:" + k.Hash[7:] }, ErrInvalidConfig, "hash: "},
		{"no prefix", func(k *DevKey) { k.Hash = k.Hash[len("sha256:"):] }, ErrInvalidConfig, "hash: "},
		{"short hex", func(k *DevKey) { k.Hash = k.Hash[:len(k.Hash)-2] }, ErrInvalidConfig, "hash: "},
		{"not hex", func(k *DevKey) { k.Hash = "sha256:" + strings.Repeat("zz", 32) }, ErrInvalidConfig, "hash: "},
		{"plain key instead of hash", func(k *DevKey) { k.Hash = "alice-dev-key" }, ErrInvalidConfig, "hash: "},
		{"principal without prefix", func(k *DevKey) { k.Principal = "alice@example.com" }, ErrInvalidConfig, "principal: "},
		{"empty name", func(k *DevKey) { k.Principal = "user:" }, ErrInvalidConfig, "principal: "},
		{"name with space", func(k *DevKey) { k.Principal = "agent:a b" }, ErrInvalidConfig, "principal: "},
		{"empty group", func(k *DevKey) { k.Groups = []string{"a", ""} }, ErrInvalidConfig, "groups[1]: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := ok
			tt.mutate(&k)
			checkConfigErr(t, errors.Join(k.problems()...), tt.wantErr, tt.wantPath)
		})
	}
}

func checkConfigErr(t *testing.T, err, wantErr error, wantPath string) {
	t.Helper()
	if !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
		t.Fatalf("err = %v, want %v", err, wantErr)
	}
	if err != nil && !strings.HasPrefix(err.Error(), wantPath) {
		t.Fatalf("err = %q, want the field path %q first", err, wantPath)
	}
}

// TestValidateConfigReportsEverything checks that every problem is reported
// at once, each with its field path, against a golden file.
func TestValidateConfigReportsEverything(t *testing.T) {
	issuers := []IssuerConfig{
		{Issuer: "https://idp.example.com", Audience: "capgate", Algorithms: []string{"RS256", "HS256", "none"}},
		{Issuer: "http://idp.example.com", Audience: ""},
		{Issuer: "https://idp.example.com", Audience: "capgate"},
	}
	devKeys := []DevKey{
		{Hash: "sha256:1234", Principal: "user:alice@example.com"},
		{Hash: HashKey("bob-dev-key"), Principal: "bob"},
		{Hash: HashKey("bob-dev-key"), Principal: "agent:summarizer"},
	}
	err := ValidateConfig(issuers, devKeys)
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("err = %v, want ErrInvalidConfig", err)
	}
	if _, nerr := New(context.Background(), issuers, devKeys, Options{}); nerr == nil || nerr.Error() != err.Error() {
		t.Fatalf("New reported %v, want the same problems", nerr)
	}
	compareGolden(t, "validate_config.golden", err.Error()+"\n")
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s mismatch (run with -update if intended)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestHashKey(t *testing.T) {
	h := HashKey("alice-dev-key")
	if !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
		t.Fatalf("HashKey = %q", h)
	}
	if err := ValidateConfig(nil, []DevKey{{Hash: h, Principal: "user:a"}}); err != nil {
		t.Fatalf("HashKey output does not validate: %v", err)
	}
}
