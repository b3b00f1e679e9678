package schema

import (
	"fmt"
	"strings"
)

// scalars are the built-in field types; they reference no definition.
var scalars = map[string]bool{
	"double": true, "float": true, "int32": true, "int64": true, "uint32": true,
	"uint64": true, "sint32": true, "sint64": true, "fixed32": true, "fixed64": true,
	"sfixed32": true, "sfixed64": true, "bool": true, "string": true, "bytes": true,
}

// wellKnown maps the google.protobuf types buf bundles to the file that
// defines each. Only these may be referenced from outside the file's package.
var wellKnown = map[string]string{
	"google.protobuf.Any":         "google/protobuf/any.proto",
	"google.protobuf.Duration":    "google/protobuf/duration.proto",
	"google.protobuf.Empty":       "google/protobuf/empty.proto",
	"google.protobuf.FieldMask":   "google/protobuf/field_mask.proto",
	"google.protobuf.Struct":      "google/protobuf/struct.proto",
	"google.protobuf.Value":       "google/protobuf/struct.proto",
	"google.protobuf.ListValue":   "google/protobuf/struct.proto",
	"google.protobuf.NullValue":   "google/protobuf/struct.proto",
	"google.protobuf.Timestamp":   "google/protobuf/timestamp.proto",
	"google.protobuf.BoolValue":   "google/protobuf/wrappers.proto",
	"google.protobuf.BytesValue":  "google/protobuf/wrappers.proto",
	"google.protobuf.DoubleValue": "google/protobuf/wrappers.proto",
	"google.protobuf.FloatValue":  "google/protobuf/wrappers.proto",
	"google.protobuf.Int32Value":  "google/protobuf/wrappers.proto",
	"google.protobuf.Int64Value":  "google/protobuf/wrappers.proto",
	"google.protobuf.StringValue": "google/protobuf/wrappers.proto",
	"google.protobuf.UInt32Value": "google/protobuf/wrappers.proto",
	"google.protobuf.UInt64Value": "google/protobuf/wrappers.proto",
}

// UnresolvedError reports a type reference that names no definition in the
// file and no well-known type.
type UnresolvedError struct {
	Ref   string // as written
	Scope string // full name of the definition that holds the reference
}

func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("unresolved type %q referenced from %s", e.Ref, e.Scope)
}

// target is what a type reference resolves to: a definition of this file or
// the import path of a well-known type.
type target struct {
	decl       *Decl
	importPath string
}

// resolver answers protobuf name lookups for one file.
type resolver struct {
	pkg    string
	byName map[string]*Decl
}

func newResolver(f *File) *resolver {
	r := &resolver{pkg: f.Package, byName: map[string]*Decl{}}
	walk(f.Decls, func(d *Decl) { r.byName[d.FullName] = d })
	return r
}

// resolve follows protobuf scoping: a relative name is looked up from the
// innermost enclosing scope outwards, and the first scope that defines the
// name's first component decides (later scopes are not tried). scope is the
// full name of the message holding the reference, or the package.
func (r *resolver) resolve(ref, scope string) (target, error) {
	if scalars[ref] {
		return target{}, nil
	}
	if strings.HasPrefix(ref, ".") {
		return r.absolute(ref[1:], ref, scope)
	}
	first, _, _ := strings.Cut(ref, ".")
	for s := scope; ; {
		candidate := first
		if s != "" {
			candidate = s + "." + first
		}
		if r.defines(candidate) {
			full := ref
			if s != "" {
				full = s + "." + ref
			}
			return r.absolute(full, ref, scope)
		}
		if s == "" {
			break
		}
		if i := strings.LastIndexByte(s, '.'); i >= 0 {
			s = s[:i]
		} else {
			s = ""
		}
	}
	return target{}, &UnresolvedError{Ref: ref, Scope: scope}
}

// defines reports whether name is a definition, a package prefix of this
// file's package, or a prefix of a well-known type.
func (r *resolver) defines(name string) bool {
	if r.byName[name] != nil || r.pkg == name || strings.HasPrefix(r.pkg, name+".") {
		return true
	}
	return name == "google" || name == "google.protobuf"
}

func (r *resolver) absolute(full, ref, scope string) (target, error) {
	if d := r.byName[full]; d != nil {
		return target{decl: d}, nil
	}
	if path, ok := wellKnown[full]; ok {
		return target{importPath: path}, nil
	}
	return target{}, &UnresolvedError{Ref: ref, Scope: scope}
}
