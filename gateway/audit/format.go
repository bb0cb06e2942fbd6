package audit

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"

	"github.com/capgate/capgate/gateway/audit/siem"
)

// The handler writes canonical lines; a SIEM format (OpenOptions.Format)
// renders each one on its way to the file and to the stream. The chain
// is computed over the canonical lines, before rendering, and an OCSF
// record keeps its canonical event under unmapped.capgate, which Verify
// reads, so an OCSF trail verifies like a canonical one. A CEF trail does
// not carry whole events and cannot be verified on its own.

// formatWriter renders each line the handler writes (one Write per
// event) before it reaches w.
type formatWriter struct {
	w   io.Writer
	r   *siem.Renderer
	log *slog.Logger
}

// Write renders p, one canonical line; a line that does not render
// (which the handler never writes) is written as it is, and logged:
// nothing is lost.
func (f formatWriter) Write(p []byte) (int, error) {
	line := bytes.TrimSuffix(p, []byte("\n"))
	rec, err := f.r.Render(line)
	if err != nil {
		f.log.Error("audit: an event could not be rendered; written canonical", "error", err)
		rec = line
	}
	if _, err := f.w.Write(append(rec, '\n')); err != nil {
		return 0, err
	}
	return len(p), nil
}

// formatSink renders each event before the stream receives it.
type formatSink struct {
	StreamSink
	r   *siem.Renderer
	log *slog.Logger
}

// Enqueue renders e's line, keeping it canonical when it does not render.
func (f formatSink) Enqueue(e Entry) {
	if rec, err := f.r.Render(e.Line); err == nil {
		e.Line = rec
	} else {
		f.log.Error("audit: an event could not be rendered; streamed canonical", "error", err)
	}
	f.StreamSink.Enqueue(e)
}

// unwrapOCSF returns the canonical event an OCSF record keeps under
// unmapped.capgate, or obj itself when it is not such a record (it has an
// event member of its own). The record's other members must be exactly
// what rendering that event gives (with the record's product version),
// or a SIEM could be shown a principal the chain does not vouch for:
// anything else is ErrTampered.
func unwrapOCSF(obj map[string]any) (map[string]any, error) {
	if _, ok := obj[FieldEvent]; ok {
		return obj, nil
	}
	unmapped, _ := obj["unmapped"].(map[string]any)
	ev, ok := unmapped["capgate"].(map[string]any)
	if !ok {
		return obj, nil
	}
	ms, err := encodeMembers(ev)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	meta, _ := obj["metadata"].(map[string]any)
	product, _ := meta["product"].(map[string]any)
	version, _ := product["version"].(string)
	r, err := siem.NewRenderer(siem.OCSF, version)
	if err != nil {
		return nil, err
	}
	want, err := r.Render(join(ms, ""))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	wantObj, err := parseObject(want)
	if err != nil {
		return nil, err
	}
	got, err1 := encodeMembers(obj)
	exp, err2 := encodeMembers(wantObj)
	if err1 != nil || err2 != nil || !bytes.Equal(join(got, ""), join(exp, "")) {
		return nil, fmt.Errorf("%w: the OCSF record's fields are not those of its canonical event", ErrTampered)
	}
	return ev, nil
}

// Unwrap returns the canonical event of one line of a trail, as
// Verify reads it: the line itself when it is a canonical event, or the
// event an OCSF record keeps under unmapped.capgate, encoded canonically,
// once the record's mapped fields are checked against it (ErrTampered
// when they differ). A line that is not a JSON object is ErrMalformed.
// It does not check the chain: Verify does.
func Unwrap(line []byte) ([]byte, error) {
	obj, err := parseObject(line)
	if err != nil {
		return nil, err
	}
	if _, ok := obj[FieldEvent]; ok {
		return line, nil
	}
	ev, err := unwrapOCSF(obj)
	if err != nil {
		return nil, err
	}
	ms, err := encodeMembers(ev)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return join(ms, ""), nil
}
