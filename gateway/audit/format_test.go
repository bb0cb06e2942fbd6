package audit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/audit/siem"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestOpenFormat: with audit.format the file and the stream receive
// rendered records, the chain stays over the canonical events, and an OCSF
// file and stream verify; a CEF file is CEF and does not; an unknown
// format is refused before anything is opened.
func TestOpenFormat(t *testing.T) {
	tests := []struct {
		format     siem.Format
		prefix     string
		verifiable bool
	}{
		{siem.Canonical, `{"chain":"replica-1"`, true},
		{siem.OCSF, `{"activity_id":`, true},
		{siem.CEF, `CEF:0|capgate|capgate|v9|`, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			srv := redistest.Start(t)
			log, closeAudit, err := Open(OpenOptions{File: path, Chain: "replica-1", Stream: streamKey, Format: tt.format, Version: "v9",
				Runtime: platform.Runtime{Redis: &platform.Redis{Client: srv.Client, Timeout: time.Second}}})
			if err != nil {
				t.Fatal(err)
			}
			log.Info("capability.issue", "principal", "user:alice@example.com", "purpose", "a|b=c")
			log.Info("capability.revoke", "principal", "user:alice@example.com")
			if err := closeAudit(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], tt.prefix) || !strings.HasPrefix(lines[1], tt.prefix) {
				t.Fatalf("file:\n%s", data)
			}
			rep, ferr := Verify(bytes.NewReader(data))
			srep, serr := VerifyStream(context.Background(), srv.Client, streamKey)
			if tt.verifiable && (ferr != nil || rep.Events != 2 || serr != nil || srep.Events != 2) {
				t.Fatalf("verify: file %v %+v, stream %v %+v", ferr, rep, serr, srep)
			}
			if !tt.verifiable && (ferr == nil || serr == nil) {
				t.Fatal("a CEF trail verified")
			}
		})
	}
	if _, _, err := Open(OpenOptions{File: filepath.Join(t.TempDir(), "x"), Format: "leef"}); !errors.Is(err, siem.ErrFormat) {
		t.Fatalf("format leef: %v", err)
	}
}

// TestOCSFTamperDetected: a value changed inside an OCSF record's
// canonical event breaks the chain like a changed canonical line.
func TestOCSFTamperDetected(t *testing.T) {
	var buf bytes.Buffer
	log, closeAudit, err := Open(OpenOptions{Writer: &buf, Chain: "replica-1", Format: siem.OCSF})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("capability.issue", "principal", "user:alice@example.com")
	if err := closeAudit(); err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(buf.String(), `"principal":"user:alice@example.com","seq"`, `"principal":"user:mallory@example.com","seq"`, 1)
	if forged == buf.String() {
		t.Fatalf("the record did not hold the field as expected:\n%s", buf.String())
	}
	if _, err := Verify(strings.NewReader(forged)); !errors.Is(err, ErrTampered) {
		t.Fatalf("a forged OCSF record: %v, want ErrTampered", err)
	}
	// The mapped fields a SIEM reads are checked against the event too.
	forged = strings.Replace(buf.String(), `"user":{"uid":"user:alice@example.com"}`, `"user":{"uid":"user:mallory@example.com"}`, 1)
	if forged == buf.String() {
		t.Fatalf("the record did not hold actor.user as expected:\n%s", buf.String())
	}
	if _, err := Verify(strings.NewReader(forged)); !errors.Is(err, ErrTampered) {
		t.Fatalf("a forged OCSF actor: %v, want ErrTampered", err)
	}
}
