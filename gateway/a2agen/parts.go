package a2agen

import (
	"encoding/base64"
	"encoding/json"
	"mime"
)

// Part content members of v1.0: exactly one of them carries the content.
var partContents = []string{"text", "raw", "url", "data"}

// partTo03 translates a v1.0 Part into a v0.3 text, data or file part.
func partTo03(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	content := ""
	for _, name := range partContents {
		if _, ok := o.take(name); ok {
			if content != "" {
				return nil, malformed(o.at(name), "a part has one content member, and this one also has %q", content)
			}
			content = name
		}
	}
	if content == "" {
		return nil, malformed(path, "a part needs one of text, raw, url or data")
	}
	filename, err := o.str("filename")
	if err != nil {
		return nil, err
	}
	mediaType, err := o.str("mediaType")
	if err != nil {
		return nil, err
	}
	md, err := o.metadata("metadata")
	if err != nil {
		return nil, err
	}
	if err := o.done(); err != nil {
		return nil, err
	}
	w := out{}
	w.set("metadata", md)
	switch content {
	case "text", "data":
		if err := inlinePartTo03(o, content, filename, mediaType, w); err != nil {
			return nil, err
		}
	default:
		file, err := fileTo03(o, content, filename, mediaType)
		if err != nil {
			return nil, err
		}
		w["kind"], w["file"] = "file", file
	}
	return w.encode(), nil
}

// inlinePartTo03 writes a v1.0 text or data part as v0.3's: these carry
// no file name, and their media type is implied (text/plain for text,
// JSON for data), so any other is refused.
func inlinePartTo03(o *object, content, filename, mediaType string, w out) error {
	if filename != "" {
		return untranslatable(o.at("filename"), "a v0.3 %s part has no file name", content)
	}
	implied := map[string]string{"text": "text/plain", "data": "application/json"}[content]
	if mediaType != "" {
		if mt, _, err := mime.ParseMediaType(mediaType); err != nil || mt != implied {
			return untranslatable(o.at("mediaType"), "a v0.3 %s part is %s; %q cannot be expressed", content, implied, mediaType)
		}
	}
	value := o.members[content]
	w["kind"] = content
	if content == "text" {
		var s string
		if json.Unmarshal(value, &s) != nil {
			return malformed(o.at("text"), "not a string")
		}
		w["text"] = s
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(value, &obj) != nil {
		return untranslatable(o.at("data"), "a v0.3 data part holds a JSON object, not another JSON value")
	}
	w["data"] = value
	return nil
}

// fileTo03 builds v0.3's file member from a v1.0 raw or url part.
func fileTo03(o *object, content, filename, mediaType string) (out, error) {
	var s string
	if json.Unmarshal(o.members[content], &s) != nil {
		return nil, malformed(o.at(content), "not a string")
	}
	file := out{}
	if content == "raw" {
		b, err := decodeBytes(s)
		if err != nil {
			return nil, malformed(o.at("raw"), "not base64")
		}
		file["bytes"] = base64.StdEncoding.EncodeToString(b)
	} else {
		if s == "" {
			return nil, malformed(o.at("url"), "empty")
		}
		file["uri"] = s
	}
	file.set("name", filename)
	file.set("mimeType", mediaType)
	return file, nil
}

// decodeBytes reads ProtoJSON bytes: standard or URL-safe base64, padded
// or not.
func decodeBytes(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, ErrMalformed
}

// partTo1 translates a v0.3 part into a v1.0 Part.
func partTo1(raw json.RawMessage, path string) (json.RawMessage, error) {
	o, err := readObject(raw, path)
	if err != nil {
		return nil, err
	}
	kind, err := o.str("kind")
	if err != nil {
		return nil, err
	}
	md, err := o.metadata("metadata")
	if err != nil {
		return nil, err
	}
	w := out{}
	w.set("metadata", md)
	switch kind {
	case "text":
		text, ok := o.take("text")
		var s string
		if !ok || json.Unmarshal(text, &s) != nil {
			return nil, malformed(o.at("text"), "a text part needs its text")
		}
		w["text"] = s
	case "data":
		data, ok := o.take("data")
		var obj map[string]json.RawMessage
		if !ok || json.Unmarshal(data, &obj) != nil {
			return nil, malformed(o.at("data"), "a data part needs a JSON object")
		}
		w["data"] = data
	case "file":
		if err := fileTo1(o, w); err != nil {
			return nil, err
		}
	default:
		return nil, malformed(o.at("kind"), "unknown part kind %q", kind)
	}
	if err := o.done(); err != nil {
		return nil, err
	}
	return w.encode(), nil
}

// fileTo1 writes a v0.3 file part's content as v1.0's raw or url, with
// its name and MIME type as filename and mediaType.
func fileTo1(o *object, w out) error {
	raw, ok := o.take("file")
	if !ok {
		return malformed(o.at("file"), "a file part needs its file")
	}
	f, err := readObject(raw, o.at("file"))
	if err != nil {
		return err
	}
	bytes, err := f.str("bytes")
	if err != nil {
		return err
	}
	uri, err := f.str("uri")
	if err != nil {
		return err
	}
	switch {
	case (bytes == "") == (uri == ""):
		return malformed(f.path, "a file has either bytes or a uri")
	case bytes != "":
		b, err := base64.StdEncoding.DecodeString(bytes)
		if err != nil {
			return malformed(f.at("bytes"), "not base64")
		}
		w["raw"] = base64.StdEncoding.EncodeToString(b)
	default:
		w["url"] = uri
	}
	for from, to := range map[string]string{"name": "filename", "mimeType": "mediaType"} {
		s, err := f.str(from)
		if err != nil {
			return err
		}
		w.set(to, s)
	}
	return f.done()
}

// eachPart translates a list of parts with fn.
func eachPart(o *object, name string, fn func(json.RawMessage, string) (json.RawMessage, error)) ([]any, error) {
	raw, ok := o.take(name)
	if !ok {
		return nil, malformed(o.at(name), "required")
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, malformed(o.at(name), "not an array")
	}
	parts := make([]any, 0, len(list))
	for i, p := range list {
		t, err := fn(p, o.elem(name, i))
		if err != nil {
			return nil, err
		}
		parts = append(parts, t)
	}
	return parts, nil
}
