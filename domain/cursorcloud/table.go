package cursorcloud

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// Class is what a route carries, as far as the policy cares.
type Class string

// The classes.
const (
	// ClassServed: Keygate answers the route itself (decided at run time
	// from the routes it mounts); it reaches Cursor only when Keygate
	// relays it, and then as its table class.
	ClassServed Class = "served"
	// ClassMetadata: account, entitlement, auth, server configuration,
	// feature flags, telemetry without code, prompts or file contents.
	ClassMetadata Class = "metadata"
	// ClassCode: code, prompts, file contents, diffs, repository data, or a
	// model run; and every path the table does not list.
	ClassCode Class = "code"
)

// Route is an RPC path cut into its service (package-qualified) and
// method; a path that is not of the form /<service>/<method> has its whole
// path as Method and an empty Service.
type Route struct {
	Service, Method string
}

// String is the route as a Connect procedure without the leading slash.
func (r Route) String() string {
	if r.Service == "" {
		return r.Method
	}
	return r.Service + "/" + r.Method
}

// ParseRoute cuts a request path into a Route.
func ParseRoute(path string) Route {
	trimmed := strings.TrimPrefix(path, "/")
	service, method, ok := strings.Cut(trimmed, "/")
	if !ok || service == "" || method == "" || strings.Contains(method, "/") || !strings.Contains(service, ".") {
		return Route{Method: path}
	}
	return Route{Service: service, Method: method}
}

// Entry is one line of the table.
type Entry struct {
	Route Route
	Class Class
}

//go:embed routes.txt
var routesText string

// table is routes.txt parsed once; a malformed table is a build defect,
// caught by the package's specs.
var table, tableErr = parseTable(routesText)

// parseTable reads "<service>/<method> <class>" lines; blank lines and
// lines starting with # are skipped. A route listed twice or a class other
// than metadata or code is an error.
func parseTable(text string) (map[Route]Class, error) {
	out := map[Route]Class{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("routes.txt line %d: want \"<service>/<method> <class>\"", i+1)
		}
		r := ParseRoute("/" + fields[0])
		c := Class(fields[1])
		if r.Service == "" || (c != ClassMetadata && c != ClassCode) {
			return nil, fmt.Errorf("routes.txt line %d: bad route or class %q", i+1, line)
		}
		if _, dup := out[r]; dup {
			return nil, fmt.Errorf("routes.txt line %d: %s listed twice", i+1, r)
		}
		out[r] = c
	}
	return out, nil
}

// TableErr reports a malformed embedded table (nil when it parsed).
func TableErr() error { return tableErr }

// restMetadata are the client's plain-HTTP account paths outside the RPC
// schema (so routes.txt, which lists exactly the schema, cannot hold
// them). They carry a sign-in poll's ids, a logout or a billing lookup:
// no code, prompt or file. Refusing them in metadata mode would break the
// client's sign-in and account pages, which is what metadata mode keeps.
// Every other non-RPC path stays code.
var restMetadata = map[string]bool{
	"/auth/poll":                     true,
	"/auth/logout":                   true,
	"/auth/full_stripe_profile":      true,
	"/auth/stripe_profile":           true,
	"/auth/has_valid_payment_method": true,
}

// Classify is the table's class of a request path: ClassMetadata or
// ClassCode, and ClassCode for a path the table does not list. It never
// says ClassServed: see ClassifyServed.
func Classify(path string) (Route, Class) {
	r := ParseRoute(path)
	if c, ok := table[r]; ok {
		return r, c
	}
	if r.Service == "" && restMetadata[r.Method] {
		return r, ClassMetadata
	}
	return r, ClassCode
}

// ClassifyServed is Classify with the routes Keygate mounts (served, a
// predicate on the request path, nil for none) counted as ClassServed.
func ClassifyServed(path string, served func(path string) bool) (Route, Class) {
	r, c := Classify(path)
	if served != nil && served(path) {
		return r, ClassServed
	}
	return r, c
}

// Table lists every classified route, sorted by service and method.
func Table() []Entry {
	out := make([]Entry, 0, len(table))
	for r, c := range table {
		out = append(out, Entry{Route: r, Class: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Route.String() < out[j].Route.String() })
	return out
}

// unlisted is the ledger's one route for every path the table lacks.
var unlisted = Route{Method: "(unlisted)"}

// LedgerRoute is how a ledger or a metric names r: r itself when the table
// lists it, else one "(unlisted)" route, so that paths a client makes up
// cannot grow the ledger's keys or the metrics' labels.
func LedgerRoute(r Route) Route {
	if _, ok := table[r]; ok {
		return r
	}
	if r.Service == "" && restMetadata[r.Method] {
		return r
	}
	return unlisted
}
