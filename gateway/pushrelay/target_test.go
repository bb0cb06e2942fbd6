package pushrelay_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/capgate/capgate/gateway/pushrelay"
)

// fakeResolver answers every name from a table.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range f[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if len(out) == 0 {
		return nil, errors.New("no such host")
	}
	return out, nil
}

func TestCheckTarget(t *testing.T) {
	res := fakeResolver{"hooks.example.com": {"93.184.216.34"}, "gw.example": {"93.184.216.35"}, "rebind.example": {"93.184.216.34", "10.0.0.7"},
		"local.example": {"127.0.0.1"}}
	strict := pushrelay.Targets{Resolver: res, Refused: []string{"https://gw.example/a2a/"}}
	lax := pushrelay.Targets{Resolver: res, AllowHTTP: true, AllowPrivate: true}
	tests := []struct {
		name    string
		t       pushrelay.Targets
		url     string
		wantErr error
	}{
		{"public https", strict, "https://hooks.example.com/a2a", nil},
		{"public address", strict, "https://93.184.216.34/x", nil},
		{"http refused", strict, "http://hooks.example.com/a2a", pushrelay.ErrTarget},
		{"http allowed", lax, "http://hooks.example.com/a2a", nil},
		{"other scheme", lax, "ftp://hooks.example.com/a2a", pushrelay.ErrTarget},
		{"loopback", strict, "https://127.0.0.1:8443/", pushrelay.ErrTarget},
		{"loopback v6", strict, "https://[::1]/", pushrelay.ErrTarget},
		{"mapped loopback", strict, "https://[::ffff:127.0.0.1]/", pushrelay.ErrTarget},
		{"private", strict, "https://192.168.1.10/", pushrelay.ErrTarget},
		{"link-local metadata", strict, "https://169.254.169.254/latest", pushrelay.ErrTarget},
		{"unspecified", strict, "https://0.0.0.0/", pushrelay.ErrTarget},
		{"shared space", strict, "https://100.64.0.1/", pushrelay.ErrTarget},
		{"name to loopback", strict, "https://local.example/", pushrelay.ErrTarget},
		{"one private address of several", strict, "https://rebind.example/", pushrelay.ErrTarget},
		{"unresolvable", strict, "https://nowhere.example/", pushrelay.ErrTarget},
		{"private allowed", lax, "https://127.0.0.1:8443/", nil},
		{"credentials", strict, "https://u:p@hooks.example.com/", pushrelay.ErrTarget},
		{"relative", strict, "/hook", pushrelay.ErrTarget},
		{"the relay itself", strict, "https://gw.example/a2a/notes/push/x", pushrelay.ErrTarget},
		{"the relay in capitals", strict, "HTTPS://GW.EXAMPLE/a2a/notes/push/x", pushrelay.ErrTarget},
		{"the relay by dot segments", strict, "https://gw.example/x/../a2a//notes/push/x", pushrelay.ErrTarget},
		{"the relay's base", strict, "https://gw.example/a2a", pushrelay.ErrTarget},
		{"beside the relay", strict, "https://gw.example/a2afoo", nil},
		{"the relay by its default port", strict, "https://gw.example:443/a2a/notes/push/x", pushrelay.ErrTarget},
		{"the relay by a trailing dot", strict, "https://gw.example./a2a/notes/push/x", pushrelay.ErrTarget},
		{"the relay by percent-encoding", strict, "https://gw.example/%61%32a/notes/push/x", pushrelay.ErrTarget},
		{"this network", strict, "https://0.1.2.3/", pushrelay.ErrTarget},
		{"reserved", strict, "https://240.0.0.1/", pushrelay.ErrTarget},
		{"broadcast", strict, "https://255.255.255.255/", pushrelay.ErrTarget},
		{"benchmarking", strict, "https://198.18.0.1/", pushrelay.ErrTarget},
		{"IETF protocol assignments", strict, "https://192.0.0.170/", pushrelay.ErrTarget},
		{"v4-compatible loopback", strict, "https://[::127.0.0.1]/", pushrelay.ErrTarget},
		{"NAT64 of loopback", strict, "https://[64:ff9b::127.0.0.1]/", pushrelay.ErrTarget},
		{"local NAT64 of a private address", strict, "https://[64:ff9b:1::10.0.0.1]/", pushrelay.ErrTarget},
		{"6to4 of loopback", strict, "https://[2002:7f00:1::1]/", pushrelay.ErrTarget},
		{"Teredo", strict, "https://[2001::1]/", pushrelay.ErrTarget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.t.CheckTarget(context.Background(), tc.url); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("CheckTarget(%q) = %v, want %v", tc.url, err, tc.wantErr)
			}
		})
	}
}

// TestControl: the dial-time check refuses what the set-time check
// refuses, on the address actually dialled.
func TestControl(t *testing.T) {
	strict, lax := pushrelay.Targets{}, pushrelay.Targets{AllowPrivate: true}
	tests := []struct {
		name    string
		t       pushrelay.Targets
		addr    string
		wantErr error
	}{
		{"public", strict, "93.184.216.34:443", nil},
		{"loopback", strict, "127.0.0.1:443", pushrelay.ErrTarget},
		{"private v6", strict, "[fd00::1]:443", pushrelay.ErrTarget},
		{"link-local v6", strict, "[fe80::1]:443", pushrelay.ErrTarget},
		{"loopback allowed", lax, "127.0.0.1:443", nil},
		{"not an address", strict, "hooks.example.com:443", pushrelay.ErrTarget},
		{"mapped loopback", strict, "[::ffff:127.0.0.1]:443", pushrelay.ErrTarget},
		{"NAT64 of metadata", strict, "[64:ff9b::169.254.169.254]:443", pushrelay.ErrTarget},
		{"this network", strict, "0.0.0.1:443", pushrelay.ErrTarget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.t.Control("tcp", tc.addr, nil); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("Control(%q) = %v, want %v", tc.addr, err, tc.wantErr)
			}
		})
	}
}
