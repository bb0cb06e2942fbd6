package config

import "errors"

// ErrInvalid is wrapped by every error Load returns for a config that was
// read but is not acceptable.
var ErrInvalid = errors.New("config: invalid")

// ErrRead is wrapped when the config file cannot be read at all.
var ErrRead = errors.New("config: cannot read file")
