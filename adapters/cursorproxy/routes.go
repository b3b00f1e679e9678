package cursorproxy

import "net/http"

// RouteTable turns exact-path routes (the shape of the Cursor adapter's
// Routes) into the Keygate handler and path predicate Options take.
func RouteTable(routes map[string]http.Handler) (http.Handler, func(path string) bool) {
	mux := http.NewServeMux()
	paths := make(map[string]struct{}, len(routes))
	for p, h := range routes {
		mux.Handle(p, h)
		paths[p] = struct{}{}
	}
	return mux, func(path string) bool {
		_, ok := paths[path]
		return ok
	}
}
