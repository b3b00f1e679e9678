package schema_test

import (
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/cmd/protoextract/schema"
	"keygate/domain/cursorcloud"
)

// contentName matches the names of string and bytes fields that could hold
// code, prompts, file contents, diffs or repository data. A request that
// has one anywhere in its message tree cannot be a metadata route.
var contentName = regexp.MustCompile(`(?i)(content|code|text|diff|file|prompt|query|message|patch|repo|path|source|snippet|chunk|context|conversation|bubble|selection|instruction|document|blob|commit|branch|markdown|body|data|history|summary|input|output|workspace|edit|command|terminal|image|url|title|description|rule|memor|knowledge|note|comment|log|error|stack|trace|payload|args|result|response|request|plan|task|test|question|answer|goal|feedback|reason|suggest|completion|lint|symbol|definition|hunk|line|cell|notebook|spec|sql|json|yaml|html|transcript)`)

// schemaMethods lists every RPC of the two client schemas as
// "<package>.<Service>/<Method>", with the services and methods the
// extractor's plans declare where the schema lacks them, and each one's
// request type resolved in its file.
func schemaMethods() map[string]func() bool {
	fx := referenceFixture()
	out := map[string]func() bool{}
	for pkg, f := range fx.inputs {
		plan := planFor(pkg)
		services := map[string][]schema.Method{}
		for _, s := range f.Services {
			services[s.Name] = append(services[s.Name], s.Methods...)
		}
		for _, sp := range plan.Services {
			services[sp.Name] = append(services[sp.Name], sp.Methods...)
		}
		for name, methods := range services {
			for _, m := range methods {
				out[pkg+"."+name+"/"+m.Name] = func() bool { return carriesContent(f, m.Input, "", map[string]bool{}) }
			}
		}
	}
	return out
}

// carriesContent reports whether the message named ref (seen from scope)
// has a content-named string or bytes field, a map of strings, or a
// free-form value anywhere in its tree. An unresolved type counts as
// content.
func carriesContent(f *schema.File, ref, scope string, seen map[string]bool) bool {
	d := lookupIn(f, ref, scope)
	if d == nil {
		return true
	}
	if seen[d.FullName] {
		return false
	}
	seen[d.FullName] = true
	for _, fl := range d.Fields {
		switch {
		case fl.Type == "string" || fl.Type == "bytes":
			if contentName.MatchString(fl.Name) || fl.KeyType != "" {
				return true
			}
		case strings.HasPrefix(fl.Type, "google.protobuf."):
			if fl.Type == "google.protobuf.Struct" || fl.Type == "google.protobuf.Value" || fl.Type == "google.protobuf.Any" {
				return true
			}
		case isScalar(fl.Type):
		default:
			if lookupIn(f, fl.Type, d.FullName) != nil && lookupIn(f, fl.Type, d.FullName).Kind == schema.Enum {
				continue
			}
			if carriesContent(f, fl.Type, d.FullName, seen) {
				return true
			}
		}
	}
	return false
}

func isScalar(t string) bool {
	switch t {
	case "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64",
		"sfixed32", "sfixed64", "bool", "double", "float":
		return true
	}
	return false
}

// lookupIn resolves ref as protobuf does: innermost scope outwards.
func lookupIn(f *schema.File, ref, scope string) *schema.Decl {
	ref = strings.TrimPrefix(ref, ".")
	for s := scope; s != ""; {
		if d, ok := f.Lookup(s + "." + ref); ok {
			return d
		}
		i := strings.LastIndex(s, ".")
		if i < 0 {
			break
		}
		s = s[:i]
	}
	d, _ := f.Lookup(ref)
	return d
}

var _ = Describe("The Cursor cloud classification (domain/cursorcloud/routes.txt)", func() {
	It("parses", func() {
		Expect(cursorcloud.TableErr()).NotTo(HaveOccurred())
	})

	It("classifies every method of the client schema, and lists no method the schema lacks", func() {
		methods := schemaMethods()
		listed := map[string]bool{}
		for _, e := range cursorcloud.Table() {
			listed[e.Route.String()] = true
		}
		var unclassified, stale []string
		for m := range methods {
			if !listed[m] {
				unclassified = append(unclassified, m)
			}
		}
		for m := range listed {
			if _, ok := methods[m]; !ok {
				stale = append(stale, m)
			}
		}
		Expect(unclassified).To(BeEmpty(), "add these to domain/cursorcloud/routes.txt (code when unsure)")
		Expect(stale).To(BeEmpty(), "these are not in the schema any more")
		Expect(len(methods)).To(BeNumerically(">", 1000))
	})

	It("calls metadata only routes whose requests carry no content-named text anywhere", func() {
		methods := schemaMethods()
		// Served locally whatever the policy, and their requests' text is
		// client build facts (os, remote authority), not code.
		vetted := map[string]bool{
			"aiserver.v1.AiService/GetServerConfig": true, "aiserver.v1.ServerConfigService/GetServerConfig": true,
			"aiserver.v1.AiService/CppConfig": true, "aiserver.v1.AiService/GetDefaultModelNudgeData": true,
		}
		var suspicious []string
		for _, e := range cursorcloud.Table() {
			if e.Class == cursorcloud.ClassMetadata && !vetted[e.Route.String()] && methods[e.Route.String()]() {
				suspicious = append(suspicious, e.Route.String())
			}
		}
		Expect(suspicious).To(BeEmpty(), "a metadata route whose request may carry content: classify it code")
	})
})
