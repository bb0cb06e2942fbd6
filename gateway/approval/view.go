package approval

import (
	"strconv"
	"strings"
	"time"
)

// Shown is a request as the admin API answers it: Public (no real
// resource id, no MAC), with its lifetimes written for people and
// programs alike ("ttl": "15m" and "ttlSeconds": 900, "wait": "1h" and
// "waitSeconds": 3600) instead of a count of nanoseconds. Its outer
// fields take the place of the embedded Request's of the same name, in
// JSON both ways.
type Shown struct {
	Request
	Grants      []ShownGrant `json:"grants"`
	Wait        string       `json:"wait"`
	WaitSeconds int64        `json:"waitSeconds"`
}

// ShownGrant is a Grant of a Shown request.
type ShownGrant struct {
	Grant
	TTL        string `json:"ttl"`
	TTLSeconds int64  `json:"ttlSeconds"`
}

// Show returns r as the admin API answers it.
func (r Request) Show() Shown {
	pub := r.Public()
	s := Shown{Request: pub, Wait: ShortDuration(pub.Wait), WaitSeconds: int64(pub.Wait / time.Second),
		Grants: make([]ShownGrant, len(pub.Grants))}
	for i, g := range pub.Grants {
		s.Grants[i] = ShownGrant{Grant: g, TTL: ShortDuration(g.TTL), TTLSeconds: int64(g.TTL / time.Second)}
	}
	return s
}

// ShortDuration writes d as Go does, without the zero units it ends with:
// "15m", "1h", "1h30m", "90s" rather than "15m0s" or "1h0m0s".
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// HumanDuration writes d for people: "15 min", "1 h", "1 h 30 min",
// "2 days", "45 s": its largest unit and the next one down, if not zero
// ("1 h 30 min", not "1 h 30 min 10 s"). Under a second it is Go's.
func HumanDuration(d time.Duration) string {
	units := []struct {
		size       time.Duration
		one, other string
	}{{24 * time.Hour, " day", " days"}, {time.Hour, " h", " h"}, {time.Minute, " min", " min"}, {time.Second, " s", " s"}}
	for i, u := range units {
		if d < u.size {
			continue
		}
		n := d / u.size
		out := strconv.FormatInt(int64(n), 10) + u.other
		if n == 1 {
			out = "1" + u.one
		}
		if i+1 < len(units) {
			if m := (d - n*u.size) / units[i+1].size; m > 0 {
				out += " " + strconv.FormatInt(int64(m), 10) + units[i+1].other
			}
		}
		return out
	}
	return d.String()
}
