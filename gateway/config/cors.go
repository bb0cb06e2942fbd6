package config

import "github.com/capgate/capgate/gateway/cors"

// CORS lets browser pages on the listed origins call the gateway. Absent
// or with no origins, CORS is off.
type CORS struct {
	// AllowedOrigins lists the origins allowed to call, each "*" or
	// scheme://host[:port].
	AllowedOrigins []string `yaml:"allowed_origins"`
	// AllowCredentials lets browsers send cookies and TLS client
	// certificates; never with "*".
	AllowCredentials bool `yaml:"allow_credentials,omitempty"`
	// MaxAge is how long a browser may cache a preflight answer.
	MaxAge Duration `yaml:"max_age,omitempty"`
}

// Settings returns the settings as the cors package takes them. A nil
// CORS gives the zero value: off.
func (c *CORS) Settings() cors.Config {
	if c == nil {
		return cors.Config{}
	}
	return cors.Config{AllowedOrigins: c.AllowedOrigins, AllowCredentials: c.AllowCredentials, MaxAge: c.MaxAge.D()}
}

func (c *CORS) validate(add addFunc) {
	if err := c.Settings().Validate(); err != nil {
		add("cors", "%v", err)
	}
}
