package schema

import (
	"fmt"
	"slices"
)

// Closure returns the top-level definitions of f reachable from roots (names
// relative to f's package), in source order, and the sorted import paths of
// the well-known types they use. The unit of reachability is a top-level
// definition: referencing a nested type pulls in its top-level ancestor, and
// every reference anywhere inside a kept definition is followed.
func Closure(f *File, roots []string) ([]*Decl, []string, error) {
	r := newResolver(f)
	kept := map[*Decl]bool{}
	imports := map[string]bool{}
	var queue []*Decl
	add := func(t target) {
		if t.importPath != "" {
			imports[t.importPath] = true
		}
		if t.decl != nil && !kept[t.decl.Top()] {
			kept[t.decl.Top()] = true
			queue = append(queue, t.decl.Top())
		}
	}
	for _, name := range roots {
		t, err := r.resolve(name, f.Package)
		if err != nil {
			return nil, nil, fmt.Errorf("resolve root: %w", err)
		}
		if t.decl == nil {
			return nil, nil, fmt.Errorf("resolve root: %q is not a definition of %s", name, f.Package)
		}
		add(t)
	}
	for len(queue) > 0 {
		top := queue[0]
		queue = queue[1:]
		targets, err := references(r, top)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range targets {
			add(t)
		}
	}
	var decls []*Decl
	for _, d := range f.Decls {
		if kept[d] {
			decls = append(decls, d)
		}
	}
	paths := make([]string, 0, len(imports))
	for p := range imports {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return decls, paths, nil
}

// references resolves every field type used anywhere inside top, nested
// definitions included, each in the scope of the message that declares it.
func references(r *resolver, top *Decl) ([]target, error) {
	var targets []target
	var err error
	walk([]*Decl{top}, func(d *Decl) {
		for _, fld := range d.Fields {
			if err != nil {
				return
			}
			var t target
			t, err = r.resolve(fld.Type, d.FullName)
			targets = append(targets, t)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("follow references of %s: %w", top.FullName, err)
	}
	return targets, nil
}
