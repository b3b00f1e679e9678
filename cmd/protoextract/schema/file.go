package schema

// File is a parsed .proto file. Besides the structure needed for reference
// resolution, it keeps the source text so that each definition can be copied
// out byte for byte.
type File struct {
	Syntax   string
	Package  string
	Imports  []string
	Options  []Option
	Decls    []*Decl    // top-level messages and enums, in source order
	Services []*Service // in source order

	src      string
	comments []comment
}

// Option is a file-level `option name = value;` statement.
type Option struct {
	Name  string
	Value string // literal as written, strings keep their quotes
}

// DeclKind tells a message from an enum.
type DeclKind int

// The kinds of declaration.
const (
	Message DeclKind = iota
	Enum
)

// Decl is a message or enum definition, top-level or nested.
type Decl struct {
	Kind     DeclKind
	Name     string
	FullName string // package-qualified, e.g. agent.v1.RequestedModel.ModelParameterValue
	Parent   *Decl  // nil for top-level definitions
	Nested   []*Decl
	Fields   []Field     // messages only, oneof members included
	Values   []EnumValue // enums only

	start, end int // source span from the keyword to the closing brace
}

// Top returns the top-level definition that contains d (d itself when it is
// top-level). Extraction copies whole top-level definitions, so nested types
// always travel with their parent.
func (d *Decl) Top() *Decl {
	for d.Parent != nil {
		d = d.Parent
	}
	return d
}

// Field returns the field with the given name and whether it exists.
func (d *Decl) Field(name string) (Field, bool) {
	for _, f := range d.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Field is one message field. Map fields have a non-empty KeyType and their
// value type in Type.
type Field struct {
	Name    string
	Number  int
	Label   string // "", "optional", "repeated" or "required"
	Type    string // as written: a scalar name or a (possibly dotted) reference
	KeyType string
	Oneof   string // name of the enclosing oneof, "" outside one
}

// EnumValue is one enum constant.
type EnumValue struct {
	Name   string
	Number int
}

// Service is a service definition.
type Service struct {
	Name    string
	Methods []Method
}

// Method returns the method with the given name and whether it exists.
func (s *Service) Method(name string) (Method, bool) {
	for _, m := range s.Methods {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// Method is one rpc. Input and Output are written as in the source (or as
// the plan names them), relative to the file's package.
type Method struct {
	Name         string
	Input        string
	Output       string
	ClientStream bool
	ServerStream bool
}

// Service returns the service with the given name and whether it exists.
func (f *File) Service(name string) (*Service, bool) {
	for _, s := range f.Services {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Lookup finds a definition by its name relative to the package (e.g.
// "RequestedModel.ModelParameterValue") or by its full name.
func (f *File) Lookup(name string) (*Decl, bool) {
	var found *Decl
	walk(f.Decls, func(d *Decl) {
		if d.FullName == name || d.FullName == f.Package+"."+name {
			found = d
		}
	})
	return found, found != nil
}

// walk visits every definition depth-first in source order.
func walk(decls []*Decl, visit func(*Decl)) {
	for _, d := range decls {
		visit(d)
		walk(d.Nested, visit)
	}
}
