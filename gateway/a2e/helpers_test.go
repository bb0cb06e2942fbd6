package a2e

import "encoding/json"

func jsonNumber(s string) json.Number { return json.Number(s) }
