package schema

import (
	"fmt"
	"strings"
)

// tokenKind classifies a lexical token of a .proto file.
type tokenKind int

const (
	tokIdent  tokenKind = iota // identifiers and dotted names, e.g. google.protobuf.Struct
	tokNumber                  // integer and float literals (sign is a separate symbol)
	tokString                  // quoted string literal, text includes the quotes
	tokSymbol                  // one punctuation character: { } ( ) < > [ ] ; = , -
	tokEOF
)

// token is one lexical unit. start and end are byte offsets into the source
// so that definitions can later be copied out verbatim.
type token struct {
	kind       tokenKind
	text       string
	start, end int
	line       int
}

// comment is a // or /* */ comment. The parser does not see comments; the
// renderer uses them to attach leading comments and to drop the extractor's
// per-build "Copied from" annotations.
type comment struct {
	text       string
	start, end int
	// ownLine reports that only whitespace precedes the comment on its line.
	ownLine bool
}

// SyntaxError reports source that the lexer or parser cannot read.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// lex splits src into tokens and comments. It accepts the subset of the
// protobuf language that appears in schema files: identifiers, numbers,
// strings, punctuation and both comment styles.
func lex(src string) ([]token, []comment, error) {
	// The Cursor schemas average about ten bytes per token (comments
	// included); reserving that up front avoids regrowing a large slice.
	toks := make([]token, 0, len(src)/8)
	var comments []comment
	line := 1
	lineStart := 0
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
			lineStart = i
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			comments = append(comments, comment{
				text: src[i : i+end], start: i, end: i + end,
				ownLine: strings.TrimSpace(src[lineStart:i]) == "",
			})
			i += end
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, nil, &SyntaxError{Line: line, Msg: "unterminated block comment"}
			}
			stop := i + 2 + end + 2
			comments = append(comments, comment{
				text: src[i:stop], start: i, end: stop,
				ownLine: strings.TrimSpace(src[lineStart:i]) == "",
			})
			line += strings.Count(src[i:stop], "\n")
			if nl := strings.LastIndexByte(src[i:stop], '\n'); nl >= 0 {
				lineStart = i + nl + 1
			}
			i = stop
		case isIdentStart(c) || c == '.' && i+1 < len(src) && isIdentStart(src[i+1]):
			j := i + 1
			for j < len(src) && (isIdentPart(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, token{kind: tokIdent, text: src[i:j], start: i, end: j, line: line})
			i = j
		case isDigit(c):
			j := i + 1
			for j < len(src) && (isIdentPart(src[j]) || src[j] == '.' ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, token{kind: tokNumber, text: src[i:j], start: i, end: j, line: line})
			i = j
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				if j < len(src) && src[j] == '\n' {
					return nil, nil, &SyntaxError{Line: line, Msg: "newline in string literal"}
				}
				j++
			}
			if j >= len(src) {
				return nil, nil, &SyntaxError{Line: line, Msg: "unterminated string literal"}
			}
			toks = append(toks, token{kind: tokString, text: src[i : j+1], start: i, end: j + 1, line: line})
			i = j + 1
		case strings.IndexByte("{}()<>[];=,-+:", c) >= 0:
			toks = append(toks, token{kind: tokSymbol, text: src[i : i+1], start: i, end: i + 1, line: line})
			i++
		default:
			return nil, nil, &SyntaxError{Line: line, Msg: fmt.Sprintf("unexpected character %q", c)}
		}
	}
	toks = append(toks, token{kind: tokEOF, start: len(src), end: len(src), line: line})
	return toks, comments, nil
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
