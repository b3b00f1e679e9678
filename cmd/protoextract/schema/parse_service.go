package schema

func (p *parser) service() (*Service, error) {
	p.next()
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	s := &Service{Name: name}
	if _, err := p.expect("{"); err != nil {
		return nil, err
	}
	for p.peek(0).text != "}" {
		switch t := p.peek(0); {
		case t.kind == tokEOF:
			return nil, p.errorf("unterminated service %s", name)
		case t.text == ";":
			p.next()
		case t.text == "option":
			if err := p.skipStatement(); err != nil {
				return nil, err
			}
		case t.text == "rpc":
			m, err := p.rpc()
			if err != nil {
				return nil, err
			}
			s.Methods = append(s.Methods, m)
		default:
			return nil, p.errorf("unexpected %q in service %s", t.text, name)
		}
	}
	p.next()
	return s, nil
}

func (p *parser) rpc() (Method, error) {
	p.next()
	var m Method
	var err error
	if m.Name, err = p.ident(); err != nil {
		return m, err
	}
	if m.ClientStream, m.Input, err = p.rpcType(); err != nil {
		return m, err
	}
	if _, err = p.expect("returns"); err != nil {
		return m, err
	}
	if m.ServerStream, m.Output, err = p.rpcType(); err != nil {
		return m, err
	}
	if p.peek(0).text == "{" {
		return m, p.skipStatement()
	}
	_, err = p.expect(";")
	return m, err
}

// rpcType reads `( [stream] Type )`.
func (p *parser) rpcType() (stream bool, typ string, err error) {
	if _, err = p.expect("("); err != nil {
		return false, "", err
	}
	if p.peek(0).text == "stream" && p.peek(1).kind == tokIdent {
		p.next()
		stream = true
	}
	if typ, err = p.ident(); err != nil {
		return false, "", err
	}
	_, err = p.expect(")")
	return stream, typ, err
}
