package audit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestOpen: the trail goes to the writer when one is given, else to the
// file, appended and chained; with Redis, every event also reaches the
// stream; close flushes and closes what Open started.
func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	srv := redistest.Start(t)
	log, closeAudit, err := Open(OpenOptions{File: path, Chain: "replica-1", Stream: streamKey,
		Runtime: platform.Runtime{Redis: &platform.Redis{Client: srv.Client, Timeout: time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("capability.issue", "principal", "user:alice@example.com")
	log.Info("capability.revoke", "principal", "user:alice@example.com")
	if err := closeAudit(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(bytes.NewReader(data))
	if err != nil || rep.Events != 2 || rep.Chains[0].Chain != "replica-1" {
		t.Fatalf("file: %+v %v\n%s", rep, err, data)
	}
	srep, err := VerifyStream(context.Background(), srv.Client, streamKey)
	if err != nil || srep.Events != 2 {
		t.Fatalf("stream: %+v %v", srep, err)
	}

	var buf bytes.Buffer
	log, closeAudit, err = Open(OpenOptions{Writer: &buf, File: path})
	if err != nil {
		t.Fatal(err)
	}
	log.Info("capability.issue")
	if err := closeAudit(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if !strings.Contains(buf.String(), `"chain":"`+host+"-") {
		t.Errorf("the writer did not get the event on a chain named after the host: %s", buf.String())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Error("the file was written although a writer was given")
	}
	if _, _, err := Open(OpenOptions{File: filepath.Join(t.TempDir(), "missing", "audit.jsonl")}); err == nil {
		t.Error("a file that cannot be opened was accepted")
	}
}
