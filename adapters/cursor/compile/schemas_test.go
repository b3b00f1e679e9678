package compile_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/types/known/structpb"

	"keygate/adapters/cursor/compile"
	agentv1 "keygate/gen/cursor/agent/v1"
)

var _ = Describe("compile.Schemas", func() {
	schema := func(i int) *structpb.Value {
		s, err := structpb.NewStruct(map[string]any{"type": "object", "properties": map[string]any{
			fmt.Sprintf("field%d", i): map[string]any{"type": "string", "description": "a field"},
			"limit":                   map[string]any{"type": "integer", "minimum": 1},
		}})
		Expect(err).NotTo(HaveOccurred())
		return structpb.NewStructValue(s)
	}
	// mcpText is the MCP channel's text a turn with one tool of schema v
	// compiles to.
	mcpText := func(schemas *compile.Schemas, v *structpb.Value) string {
		rc := &agentv1.RequestContext{Tools: []*agentv1.McpToolDefinition{{Name: "db-query", ProviderIdentifier: "db", ToolName: "query", InputSchema: v}}}
		return compile.MCPContextText(rc, schemas)
	}

	It("renders a schema the same as without it, once per distinct schema", func() {
		schemas := compile.NewSchemas(8)
		want := mcpText(nil, schema(1))
		Expect(want).To(ContainSubstring("field1"))
		Expect(mcpText(schemas, schema(1))).To(Equal(want))
		Expect(mcpText(schemas, schema(1))).To(Equal(want))
		Expect(schemas.Len()).To(Equal(1))
		Expect(mcpText(schemas, schema(2))).To(Equal(mcpText(nil, schema(2))))
		Expect(schemas.Len()).To(Equal(2))
	})

	It("keeps at most its bound, dropping the least recently used", func() {
		schemas := compile.NewSchemas(4)
		for i := range 100 {
			Expect(mcpText(schemas, schema(i))).To(Equal(mcpText(nil, schema(i))))
			Expect(schemas.Len()).To(BeNumerically("<=", 4))
		}
		Expect(mcpText(schemas, schema(3))).To(Equal(mcpText(nil, schema(3))))

		lru := compile.NewSchemas(2)
		mcpText(lru, schema(0))
		mcpText(lru, schema(1))
		mcpText(lru, schema(0)) // 0 is now the more recently used
		mcpText(lru, schema(2))
		Expect(lru.Holds(schema(0))).To(BeTrue(), "the recently used schema stays")
		Expect(lru.Holds(schema(1))).To(BeFalse(), "the least recently used schema is dropped")
		Expect(lru.Holds(schema(2))).To(BeTrue())
	})
})
