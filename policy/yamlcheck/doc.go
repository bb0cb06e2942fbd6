// Package yamlcheck finds where a problem is in a YAML document that
// capgate reads, so that every error names the file, line, column and key
// path:
//
//   - Syntax places a parse error at the construct that broke the
//     document: yaml.v3 reports the line where it gave up, which for an
//     unclosed quote or bracket can be far below the cause, and for a
//     parser (not scanner) error is one line short.
//   - Fields checks a parsed document against the Go type it decodes into
//     and reports every unknown key and every value of the wrong type,
//     with its key path, where yaml.v3 would stop at the first and name
//     the Go type instead of the path.
package yamlcheck
