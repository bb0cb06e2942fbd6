package audit_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/audit"
)

func ExampleNewHandler() {
	var file bytes.Buffer
	now := func() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }
	log := slog.New(audit.NewHandler(&file, audit.Options{Chain: "replica-1", Now: now}))

	log.Info("capability.revoke", "capability_id", "cap_1", "decision", "allow")
	fmt.Print(file.String())
	// Output:
	// {"capability_id":"cap_1","chain":"replica-1","decision":"allow","event":"capability.revoke","hash":"b9a9700ea3e22d45d71dc9bd0a1855462e596428f562db7c18f17792a9953c52","prev":"","seq":1,"time":"2025-03-01T12:00:00Z"}
}

func ExampleVerify() {
	var file bytes.Buffer
	log := slog.New(audit.NewHandler(&file, audit.Options{Chain: "replica-1"}))
	for _, d := range []string{"allow", "deny", "allow"} {
		log.Info("capability.invoke", "decision", d)
	}

	report, err := audit.Verify(bytes.NewReader(file.Bytes()))
	fmt.Println(report.Events, "events, error:", err)

	tampered := strings.Replace(file.String(), `"decision":"deny"`, `"decision":"allow"`, 1)
	_, err = audit.Verify(strings.NewReader(tampered))
	var le *audit.LineError
	if errors.As(err, &le) && errors.Is(err, audit.ErrTampered) {
		fmt.Println("first broken line:", le.Line)
	}
	// Output:
	// 3 events, error: <nil>
	// first broken line: 2
}
