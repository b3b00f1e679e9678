package schema

// decl parses a message or enum whose keyword is at the cursor.
func (p *parser) decl(scope string, parent *Decl) (*Decl, error) {
	kw := p.next()
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	d := &Decl{Name: name, FullName: scope + "." + name, Parent: parent, start: kw.start}
	if kw.text == "enum" {
		d.Kind = Enum
	}
	if _, err := p.expect("{"); err != nil {
		return nil, err
	}
	for p.peek(0).text != "}" {
		if p.peek(0).kind == tokEOF {
			return nil, p.errorf("unterminated %s %s", kw.text, name)
		}
		if d.Kind == Enum {
			err = p.enumItem(d)
		} else {
			err = p.messageItem(d, "")
		}
		if err != nil {
			return nil, err
		}
	}
	d.end = p.next().end
	return d, nil
}

func (p *parser) enumItem(d *Decl) error {
	switch p.peek(0).text {
	case ";":
		p.next()
		return nil
	case "option", "reserved":
		return p.skipStatement()
	}
	name, err := p.ident()
	if err != nil {
		return err
	}
	if _, err := p.expect("="); err != nil {
		return err
	}
	n, err := p.number()
	if err != nil {
		return err
	}
	d.Values = append(d.Values, EnumValue{Name: name, Number: n})
	if p.peek(0).text == "[" {
		return p.skipStatement()
	}
	_, err = p.expect(";")
	return err
}

// messageItem parses one statement of a message body; oneof is the name of
// the enclosing oneof when parsing a oneof body.
func (p *parser) messageItem(d *Decl, oneof string) error {
	t := p.peek(0)
	switch {
	case t.text == ";":
		p.next()
		return nil
	case oneof == "" && (p.opens("message") || p.opens("enum")):
		nested, err := p.decl(d.FullName, d)
		if err != nil {
			return err
		}
		d.Nested = append(d.Nested, nested)
		return nil
	case oneof == "" && p.opens("oneof"):
		p.next()
		name := p.next().text
		p.next() // {
		for p.peek(0).text != "}" {
			if p.peek(0).kind == tokEOF {
				return p.errorf("unterminated oneof %s", name)
			}
			if err := p.messageItem(d, name); err != nil {
				return err
			}
		}
		p.next()
		return nil
	case t.text == "option" || t.text == "reserved" || t.text == "extensions" || p.opens("extend"):
		return p.skipStatement()
	}
	return p.field(d, oneof)
}

func (p *parser) field(d *Decl, oneof string) error {
	f := Field{Oneof: oneof}
	if l := p.peek(0).text; (l == "optional" || l == "repeated" || l == "required") && p.peek(1).kind == tokIdent && p.peek(2).text != "=" {
		f.Label = p.next().text
	}
	if p.peek(0).text == "map" && p.peek(1).text == "<" {
		p.next()
		p.next()
		var err error
		if f.KeyType, err = p.ident(); err != nil {
			return err
		}
		if _, err = p.expect(","); err != nil {
			return err
		}
		if f.Type, err = p.ident(); err != nil {
			return err
		}
		if _, err = p.expect(">"); err != nil {
			return err
		}
	} else {
		typ, err := p.ident()
		if err != nil {
			return err
		}
		f.Type = typ
	}
	var err error
	if f.Name, err = p.ident(); err != nil {
		return err
	}
	if _, err = p.expect("="); err != nil {
		return err
	}
	if f.Number, err = p.number(); err != nil {
		return err
	}
	d.Fields = append(d.Fields, f)
	if p.peek(0).text == "[" {
		return p.skipStatement()
	}
	_, err = p.expect(";")
	return err
}
