package approval

import (
	"strconv"
	"time"

	"github.com/capgate/capgate/policy"
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
	s := Shown{Request: pub, Wait: policy.FormatDuration(pub.Wait), WaitSeconds: int64(pub.Wait / time.Second),
		Grants: make([]ShownGrant, len(pub.Grants))}
	for i, g := range pub.Grants {
		s.Grants[i] = ShownGrant{Grant: g, TTL: policy.FormatDuration(g.TTL), TTLSeconds: int64(g.TTL / time.Second)}
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
