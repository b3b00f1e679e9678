package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a proto3 (or proto2) schema file. It understands what the
// Cursor schema files use (messages, enums, oneofs, maps, services, file
// options, imports) and skips statements it only needs to step over
// (reserved, extensions, extend blocks, nested options).
func Parse(src string) (*File, error) {
	toks, comments, err := lex(src)
	if err != nil {
		return nil, fmt.Errorf("lex schema: %w", err)
	}
	p := &parser{toks: toks}
	f := &File{src: src, comments: comments}
	if err := p.file(f); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	return f, nil
}

type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek(n int) token {
	if p.pos+n >= len(p.toks) {
		return p.toks[len(p.toks)-1]
	}
	return p.toks[p.pos+n]
}

func (p *parser) next() token {
	t := p.peek(0)
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Line: p.peek(0).line, Msg: fmt.Sprintf(format, args...)}
}

// expect consumes the next token if its text is want.
func (p *parser) expect(want string) (token, error) {
	t := p.next()
	if t.text != want || t.kind == tokString {
		return t, &SyntaxError{Line: t.line, Msg: fmt.Sprintf("expected %q, found %q", want, t.text)}
	}
	return t, nil
}

func (p *parser) ident() (string, error) {
	t := p.next()
	if t.kind != tokIdent {
		return "", &SyntaxError{Line: t.line, Msg: fmt.Sprintf("expected identifier, found %q", t.text)}
	}
	return t.text, nil
}

func (p *parser) number() (int, error) {
	neg := false
	if p.peek(0).text == "-" {
		p.next()
		neg = true
	}
	t := p.next()
	n, err := strconv.ParseInt(t.text, 0, 64)
	if t.kind != tokNumber || err != nil {
		return 0, &SyntaxError{Line: t.line, Msg: fmt.Sprintf("expected integer, found %q", t.text)}
	}
	if neg {
		n = -n
	}
	return int(n), nil
}

// opens reports whether the statement at the cursor is `keyword Name {`.
func (p *parser) opens(keyword string) bool {
	return p.peek(0).text == keyword && p.peek(0).kind == tokIdent &&
		p.peek(1).kind == tokIdent && p.peek(2).text == "{"
}

func (p *parser) file(f *File) error {
	for p.peek(0).kind != tokEOF {
		t := p.peek(0)
		switch {
		case t.text == ";":
			p.next()
		case t.text == "syntax" || t.text == "edition":
			p.next()
			if _, err := p.expect("="); err != nil {
				return err
			}
			f.Syntax = strings.Trim(p.next().text, `"'`)
			if _, err := p.expect(";"); err != nil {
				return err
			}
		case t.text == "package":
			p.next()
			name, err := p.ident()
			if err != nil {
				return err
			}
			f.Package = name
			if _, err := p.expect(";"); err != nil {
				return err
			}
		case t.text == "import":
			p.next()
			if w := p.peek(0).text; w == "public" || w == "weak" {
				p.next()
			}
			path := p.next()
			if path.kind != tokString {
				return &SyntaxError{Line: path.line, Msg: "expected import path"}
			}
			f.Imports = append(f.Imports, strings.Trim(path.text, `"'`))
			if _, err := p.expect(";"); err != nil {
				return err
			}
		case t.text == "option":
			opt, err := p.option(f.src)
			if err != nil {
				return err
			}
			f.Options = append(f.Options, opt)
		case p.opens("message") || p.opens("enum"):
			d, err := p.decl(f.Package, nil)
			if err != nil {
				return err
			}
			f.Decls = append(f.Decls, d)
		case p.opens("service"):
			s, err := p.service()
			if err != nil {
				return err
			}
			f.Services = append(f.Services, s)
		case p.opens("extend"):
			if err := p.skipStatement(); err != nil {
				return err
			}
		default:
			return p.errorf("unexpected %q at top level", t.text)
		}
	}
	return nil
}

// option reads `option name = value;` and keeps the value text as written.
func (p *parser) option(src string) (Option, error) {
	p.next()
	start := p.peek(0).start
	for p.peek(0).text != "=" {
		if p.peek(0).kind == tokEOF {
			return Option{}, p.errorf("unterminated option")
		}
		p.next()
	}
	name := strings.TrimSpace(src[start:p.peek(0).start])
	p.next()
	vstart := p.peek(0).start
	if err := p.skipStatement(); err != nil {
		return Option{}, err
	}
	vend := p.toks[p.pos-1].start // the closing ';'
	return Option{Name: name, Value: strings.TrimSpace(src[vstart:vend])}, nil
}

// skipStatement consumes tokens up to and including the `;` that ends the
// statement, or the `}` that closes a block the statement opened.
func (p *parser) skipStatement() error {
	depth := 0
	for {
		t := p.next()
		switch {
		case t.kind == tokEOF:
			return &SyntaxError{Line: t.line, Msg: "unexpected end of file"}
		case t.kind != tokSymbol:
		case t.text == "{":
			depth++
		case t.text == "}":
			depth--
			if depth == 0 {
				return nil
			}
		case t.text == ";" && depth == 0:
			return nil
		}
	}
}
