package pushrelay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"syscall"
)

// ErrTarget means a caller's push URL is one the relay will not deliver
// to.
var ErrTarget = errors.New("pushrelay: push target refused")

// Resolver resolves a host name to its addresses (net.Resolver's
// LookupNetIP).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Targets restricts where pushes may be delivered.
type Targets struct {
	// AllowHTTP accepts http URLs as well as https.
	AllowHTTP bool
	// AllowPrivate accepts loopback, private, link-local and other
	// non-public addresses.
	AllowPrivate bool
	// Resolver resolves a URL's host at set time; nil means
	// net.DefaultResolver.
	Resolver Resolver
	// Refused are URL prefixes never accepted (the gateway's own relay
	// URLs, so that a push cannot loop).
	Refused []string
}

// CheckTarget checks a caller's push URL: its scheme, and every address
// its host is or resolves to. The error wraps ErrTarget and says why.
func (t Targets) CheckTarget(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return fmt.Errorf("%w: %q is not an absolute URL without credentials", ErrTarget, raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && t.AllowHTTP:
	default:
		return fmt.Errorf("%w: the URL must be https", ErrTarget)
	}
	for _, p := range t.Refused {
		if under(u, p) {
			return fmt.Errorf("%w: the URL is the gateway's own relay", ErrTarget)
		}
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		return t.checkAddr(a)
	}
	r := t.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("%w: host %q does not resolve", ErrTarget, host)
	}
	for _, a := range addrs {
		if err := t.checkAddr(a); err != nil {
			return err
		}
	}
	return nil
}

// checkAddr refuses an address that is not public, unless allowed.
func (t Targets) checkAddr(a netip.Addr) error {
	a = a.Unmap()
	if t.AllowPrivate {
		return nil
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || !a.IsValid() ||
		special(a) {
		return fmt.Errorf("%w: address %s is not public", ErrTarget, a)
	}
	return nil
}

// specialPurpose are ranges that are no public host's address, or that
// carry an IPv4 address inside an IPv6 one (a NAT64, 6to4 or Teredo
// gateway on the path would deliver to the IPv4 address, loopback or
// private as it may be).
var specialPurpose = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // this network
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT, private in effect
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and broadcast
	netip.MustParsePrefix("::/96"),          // IPv4-compatible
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"), // local NAT64
	netip.MustParsePrefix("2001::/32"),      // Teredo
	netip.MustParsePrefix("2002::/16"),      // 6to4
}

// special reports whether a is in a special-purpose range.
func special(a netip.Addr) bool {
	for _, p := range specialPurpose {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Control is a net.Dialer Control function that refuses to connect to an
// address CheckTarget would refuse: the check again at dial time, on the
// address actually dialled.
func (t Targets) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: dialling %q", ErrTarget, address)
	}
	return t.checkAddr(ap.Addr())
}

// under reports whether u is at or below the URL prefix, as a client
// would reach it: scheme and host compared in any case, the host without
// a trailing dot and with its scheme's default port, the path cleaned of
// dot segments and repeated slashes.
func under(u *url.URL, prefix string) bool {
	p, err := url.Parse(prefix)
	if err != nil || p.Host == "" {
		return false
	}
	if !strings.EqualFold(u.Scheme, p.Scheme) || hostPort(u) != hostPort(p) {
		return false
	}
	want := strings.TrimSuffix(path.Clean("/"+p.Path), "/") + "/"
	return strings.HasPrefix(path.Clean("/"+u.Path)+"/", want)
}

// hostPort is u's host as a client dials it: lower case, no trailing
// dot, the scheme's default port when it names none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), port)
}
