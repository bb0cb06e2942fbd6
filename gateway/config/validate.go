package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
)

var (
	agentName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)
	grantID   = regexp.MustCompile(`^[a-z][a-z0-9_.-]*:[a-z][a-z0-9_.-]*$`)
)

func (c *Config) applyDefaults() {
	c.Listen.defaults()
	if c.Admin != nil {
		c.Admin.defaults()
	}
	c.Limits.Limits = c.Limits.Limits.WithDefaults()
	c.RateLimits = c.RateLimits.WithDefaults()
	if c.Limits.UpstreamTimeout == 0 {
		c.Limits.UpstreamTimeout = Duration(30 * time.Second)
	}
	if c.Limits.MaxTasks == 0 {
		c.Limits.MaxTasks = 100_000
	}
	if c.Limits.TaskTTL == 0 {
		c.Limits.TaskTTL = Duration(24 * time.Hour)
	}
	if c.Limits.MaxAnswerBytes == 0 {
		c.Limits.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	for i := range c.Agents {
		if c.Agents[i].CardRefresh == 0 {
			c.Agents[i].CardRefresh = Duration(5 * time.Minute)
		}
	}
	c.PushRelay.applyDefaults(c.PublicURL)
	if c.Policy.ReloadInterval == 0 {
		c.Policy.ReloadInterval = Duration(2 * time.Second)
	}
	if c.Capabilities.MaxTTL == 0 {
		c.Capabilities.MaxTTL = Duration(24 * time.Hour)
	}
	if c.Redis != nil {
		if c.Redis.Timeout == 0 {
			c.Redis.Timeout = Duration(250 * time.Millisecond)
		}
		if c.Redis.MaxStaleness == 0 {
			c.Redis.MaxStaleness = Duration(2 * time.Second)
		}
		if c.Redis.Prefix == "" {
			c.Redis.Prefix = "capgate:"
		}
	}
	if c.Capabilities.Issuer == "" {
		c.Capabilities.Issuer = c.PublicURL
	}
}

func (l *Listener) defaults() {
	set := func(d *Duration, v time.Duration) {
		if *d == 0 {
			*d = Duration(v)
		}
	}
	set(&l.ReadHeaderTimeout, 5*time.Second)
	set(&l.ReadTimeout, 30*time.Second)
	set(&l.WriteTimeout, 60*time.Second)
	set(&l.IdleTimeout, 120*time.Second)
	set(&l.StreamTimeout, time.Hour)
	set(&l.ShutdownTimeout, 30*time.Second)
}

// Validate reports every problem in the config, joined with errors.Join:
// its own checks, and each package's validation of the part it owns
// (authn for oidc and dev_keys, jsonrpc for limits). Every problem names
// its key path.
func (c *Config) Validate() error { return errors.Join(c.validate()...) }

// problem is one failure at a key path such as agents[0].url. cause is
// the owning package's error, when that package found it.
type problem struct {
	path  string
	msg   string
	cause error
}

func (p *problem) Error() string { return p.path + ": " + p.msg }

// Unwrap returns the owning package's error, so that errors.Is matches
// its sentinel.
func (p *problem) Unwrap() error { return p.cause }

// validate returns every problem in the config, each a *problem.
func (c *Config) validate() []error {
	var ps []error
	add := func(path, format string, args ...any) {
		ps = append(ps, &problem{path: path, msg: fmt.Sprintf(format, args...)})
	}
	c.Listen.validate("listen", add)
	if c.Admin != nil {
		c.Admin.validate("admin", add)
	}
	if err := checkURL(c.PublicURL); err != nil {
		add("public_url", "%v", err)
	}
	ps = append(ps, c.partProblems()...)
	c.validateAgents(add)
	c.validateA2EHosts(add)
	c.validateMCPServers(add)
	c.validateRedis(add)
	c.validatePush(add)
	if c.Admin != nil && len(c.AdminAccess.Principals) == 0 && len(c.AdminAccess.Groups) == 0 {
		add("admin_access", "an admin listener needs admin principals or groups")
	}
	for i, p := range c.AdminAccess.Principals {
		if !validPrincipal(p) {
			add(fmt.Sprintf("admin_access.principals[%d]", i), "%q must start with user: or agent:", p)
		}
	}
	if t := c.Tracing; t != nil {
		if err := checkURL(t.OTLPEndpoint); err != nil {
			add("tracing.otlp_endpoint", "%v", err)
		}
		if t.SampleRatio != nil && (*t.SampleRatio < 0 || *t.SampleRatio > 1) {
			add("tracing.sample_ratio", "must be between 0 and 1")
		}
	}
	c.CORS.validate(add)
	c.validateConsole(add)
	if c.Audit.StreamMaxLen < 0 {
		add("audit.stream_max_len", "must not be negative")
	}
	if c.Audit.CheckpointEvery < 0 || c.Audit.CheckpointInterval < 0 {
		add("audit.checkpoint_every", "and checkpoint_interval must not be negative")
	}
	switch c.Audit.Format {
	case "", "canonical", "ocsf", "cef":
	default:
		add("audit.format", "%q is none of canonical, ocsf, cef", c.Audit.Format)
	}
	if c.Capabilities.MaxTTL < 0 {
		add("capabilities.max_ttl", "must be positive")
	}
	if c.Limits.MaxTasks < 0 || c.Limits.TaskTTL < 0 {
		add("limits.max_tasks", "and task_ttl must not be negative")
	}
	checkAnswerLimit("limits.max_answer_bytes", c.Limits.MaxAnswerBytes, add)
	if c.Policy.File == "" {
		add("policy.file", "is required: the grant policy decides what may be issued")
	}
	if len(c.OIDC) == 0 && len(c.DevKeys) == 0 {
		add("oidc", "no OIDC issuer and no dev key: nobody could authenticate")
	}
	return ps
}

type addFunc func(path, format string, args ...any)

func (l *Listener) validate(path string, add addFunc) {
	if l.Addr == "" {
		add(path+".addr", "is required")
	} else if _, _, err := net.SplitHostPort(l.Addr); err != nil {
		add(path+".addr", "%q is not host:port", l.Addr)
	}
	for _, d := range []struct {
		name string
		v    Duration
	}{
		{"read_header_timeout", l.ReadHeaderTimeout}, {"read_timeout", l.ReadTimeout},
		{"write_timeout", l.WriteTimeout}, {"idle_timeout", l.IdleTimeout},
		{"stream_timeout", l.StreamTimeout}, {"shutdown_timeout", l.ShutdownTimeout},
	} {
		if d.v < 0 {
			add(path+"."+d.name, "must not be negative")
		}
	}
	if l.DrainDelay < 0 {
		add(path+".drain_delay", "must not be negative")
	}
}

func (c *Config) validateAgents(add addFunc) {
	if len(c.Agents) == 0 {
		add("agents", "at least one agent is required")
	}
	seen := map[string]bool{}
	for i, a := range c.Agents {
		p := fmt.Sprintf("agents[%d]", i)
		if !agentName.MatchString(a.Name) {
			add(p+".name", "%q must be lower-case letters, digits and dashes", a.Name)
		} else if seen[a.Name] {
			add(p+".name", "%q is defined twice", a.Name)
		}
		seen[a.Name] = true
		if err := checkURL(a.URL); err != nil {
			add(p+".url", "%v", err)
		}
		if a.CardURL != "" {
			if err := sameOrigin(a.URL, a.CardURL); err != nil {
				add(p+".card_url", "%v", err)
			}
		}
		if a.Principal != "" && !validPrincipal(a.Principal) {
			add(p+".principal", "%q must start with user: or agent:", a.Principal)
		}
		switch a.TaskOwnership {
		case "", TaskOwnershipEnforce, TaskOwnershipAllowUnknown, TaskOwnershipOff:
		default:
			add(p+".task_ownership", "%q must be enforce, allow_unknown or off", a.TaskOwnership)
		}
		if a.MaxAnswerBytes != 0 {
			checkAnswerLimit(p+".max_answer_bytes", a.MaxAnswerBytes, add)
		}
		a.validateGrants(p, add)
		a.validateMessages(p, add)
		if a.UpstreamAuth != nil {
			a.UpstreamAuth.validate(p+".upstream_auth", add)
		}
	}
}

// checkAnswerLimit checks an answer limit set at path: 4 KiB to 1 GiB.
func checkAnswerLimit(path string, n int, add addFunc) {
	if n < minAnswerBytes || n > maxAnswerBytes {
		add(path, "%d must be %d (4 KiB) to %d (1 GiB) bytes; an agent returns a larger artifact as a file part by URI",
			n, minAnswerBytes, maxAnswerBytes)
	}
}

func (a Agent) validateGrants(p string, add addFunc) {
	ids := map[string]bool{}
	ops := map[string]bool{}
	for j, g := range a.Grants {
		gp := fmt.Sprintf("%s.grants[%d]", p, j)
		if !grantID.MatchString(g.ID) {
			add(gp+".id", "%q must look like resource:action", g.ID)
		} else if ids[g.ID] {
			add(gp+".id", "%q is defined twice", g.ID)
		}
		ids[g.ID] = true
		if len(g.Operations) == 0 {
			add(gp+".operations", "at least one operation is required")
		}
		for _, op := range g.Operations {
			ops[op] = true
		}
	}
	for j, g := range a.Grants {
		for _, r := range g.Requires {
			if !ids[r] {
				add(fmt.Sprintf("%s.grants[%d].requires", p, j), "unknown grant %q", r)
			}
		}
	}
	for skill, op := range a.Skills {
		if !ops[op] && !ops["*"] {
			add(p+".skills."+skill, "operation %q is in no grant of this agent", op)
		}
	}
}

func (u *UpstreamAuth) validate(p string, add addFunc) {
	if err := checkURL(u.TokenURL); err != nil {
		add(p+".token_url", "%v", err)
	}
	if u.ClientID == "" {
		add(p+".client_id", "is required")
	}
	if (u.ClientSecretEnv == "") == (u.ClientSecretFile == "") {
		add(p, "exactly one of client_secret_env and client_secret_file is required")
	}
}

func (c *Config) validateRedis(add addFunc) {
	r := c.Redis
	if r == nil {
		return
	}
	if (r.URL == "") == (len(r.Addrs) == 0) {
		add("redis", "exactly one of url (single node) and addrs (Sentinel or Cluster) is required")
	}
	if r.URL != "" {
		if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			add("redis.url", "%q is not a redis:// or rediss:// URL", r.URL)
		} else if _, set := u.User.Password(); set {
			add("redis.url", "must not carry a password; use password_env")
		}
	}
	if r.MasterName != "" && len(r.Addrs) == 0 {
		add("redis.master_name", "needs the Sentinel addrs")
	}
	if r.Timeout < 0 || r.MaxStaleness < 0 {
		add("redis", "timeout and max_staleness must not be negative")
	}
}

func validPrincipal(p string) bool {
	rest, ok := strings.CutPrefix(p, "user:")
	if !ok {
		rest, ok = strings.CutPrefix(p, "agent:")
	}
	return ok && rest != ""
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	if u.User != nil {
		return fmt.Errorf("%q must not carry credentials", raw)
	}
	return nil
}

func sameOrigin(base, other string) error {
	b, err1 := url.Parse(base)
	o, err2 := url.Parse(other)
	if err1 != nil || err2 != nil || b.Scheme != o.Scheme || b.Host != o.Host {
		return fmt.Errorf("%q must have the same scheme and host as the agent url", other)
	}
	return nil
}

func (c *Config) resolvePaths(dir string) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	c.Policy.File = abs(c.Policy.File)
	if c.Policy.ShadowFile != "" {
		c.Policy.ShadowFile = abs(c.Policy.ShadowFile)
	}
	c.Capabilities.KeysFile = abs(c.Capabilities.KeysFile)
	c.Audit.File = abs(c.Audit.File)
	for i := range c.Agents {
		if ua := c.Agents[i].UpstreamAuth; ua != nil {
			ua.ClientSecretFile = abs(ua.ClientSecretFile)
		}
	}
	for i := range c.MCPServers {
		if ua := c.MCPServers[i].UpstreamAuth; ua != nil {
			ua.ClientSecretFile, ua.BearerFile = abs(ua.ClientSecretFile), abs(ua.BearerFile)
		}
	}
}

func dirOf(path string) string { return filepath.Dir(path) }

// partProblems are the problems each package finds in the part of the
// config it owns, placed at their key paths.
func (c *Config) partProblems() []error {
	var ps []error
	for _, err := range unjoin(c.Limits.Limits.Validate()) {
		p := &problem{path: "limits", msg: err.Error(), cause: err}
		var le *jsonrpc.LimitError
		if errors.As(err, &le) {
			p.path, p.msg = "limits."+le.Field, le.Msg
		}
		ps = append(ps, p)
	}
	for _, err := range unjoin(c.RateLimits.Validate()) {
		p := &problem{path: "rate_limits", msg: err.Error(), cause: err}
		if ce, ok := errors.AsType[*ratelimit.ConfigError](err); ok {
			p.path, p.msg = "rate_limits."+ce.Field, ce.Msg
		}
		ps = append(ps, p)
	}
	for _, err := range unjoin(c.Approvals.Validate()) {
		p := &problem{path: "approvals", msg: err.Error(), cause: err}
		if ce, ok := errors.AsType[*approval.ConfigError](err); ok {
			p.path, p.msg = "approvals."+ce.Field, ce.Msg
		}
		ps = append(ps, p)
	}
	for _, err := range unjoin(authn.ValidateConfig(c.OIDC, c.DevKeys)) {
		p := &problem{path: "oidc", msg: err.Error(), cause: err}
		var ce *authn.ConfigError
		if errors.As(err, &ce) {
			p.path, p.msg = ce.Path, ce.Msg
		}
		ps = append(ps, p)
	}
	return ps
}

// unjoin returns the errors errors.Join joined, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}
