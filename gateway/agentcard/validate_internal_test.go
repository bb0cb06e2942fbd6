package agentcard

import "testing"

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    version
		wantErr bool
	}{
		{in: "1", want: version{parts: [3]uint32{1}, n: 1}},
		{in: "0.3", want: version{parts: [3]uint32{0, 3}, n: 2}},
		{in: "0.3.0", want: version{parts: [3]uint32{0, 3, 0}, n: 3}},
		{in: "10.20.999999999", want: version{parts: [3]uint32{10, 20, 999999999}, n: 3}},
		{in: "", wantErr: true},
		{in: ".", wantErr: true},
		{in: "1.", wantErr: true},
		{in: ".1", wantErr: true},
		{in: "1..0", wantErr: true},
		{in: "v1.0", wantErr: true},
		{in: "1.0.0.0", wantErr: true},
		{in: "01.0", wantErr: true},
		{in: "1.00", wantErr: true},
		{in: "+1.0", wantErr: true},
		{in: "-1.0", wantErr: true},
		{in: " 1.0", wantErr: true},
		{in: "1.0 ", wantErr: true},
		{in: "1.0-rc1", wantErr: true},
		{in: "1.0+build", wantErr: true},
		{in: "1.9999999999", wantErr: true},
		{in: "4294967296", wantErr: true},
		{in: "１.0", wantErr: true}, // full-width digit
	}
	for _, tt := range tests {
		got, err := parseVersion(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseVersion(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("parseVersion(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"0.3", "0.3.0", 0},
		{"0.3", "0.3.9", 0},
		{"0.3.0", "0.3.1", -1},
		{"0.10", "0.9", 1}, // numeric, not lexical
		{"1", "0.9.9", 1},
		{"1", "1.5", 0},
		{"1.2.5", "1.2", 0},
		{"1.3", "1.2", 1},
		{"2.0.0", "10.0.0", -1},
	}
	for _, tt := range tests {
		a, _ := parseVersion(tt.a)
		b, _ := parseVersion(tt.b)
		if got := compare(a, b); got != tt.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := compare(b, a); got != -tt.want {
			t.Errorf("compare(%s, %s) = %d, want %d (antisymmetry)", tt.b, tt.a, got, -tt.want)
		}
	}
}
