package config

import (
	"net/netip"
	"testing"
)

// FuzzParseProxies: a trusted_proxies entry is an address or a prefix, or
// refused; an accepted address trusts exactly itself.
func FuzzParseProxies(f *testing.F) {
	for _, s := range []string{"10.0.0.0/8", "192.0.2.10", "::1", "::ffff:10.1.2.3", "fe80::1%eth0", "10.0.0.1/33", "proxy", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseProxies([]string{s})
		if err != nil {
			return
		}
		if len(got) != 1 || !got[0].IsValid() {
			t.Fatalf("ParseProxies(%q) = %v", s, got)
		}
		if a, err := netip.ParseAddr(s); err == nil && (!got[0].IsSingleIP() || !got[0].Contains(a.Unmap())) {
			t.Fatalf("address %q trusts %v", s, got[0])
		}
	})
}
