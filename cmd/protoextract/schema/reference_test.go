package schema_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/cmd/protoextract/schema"
)

// annotation matches the extractor's per-build comment lines in the input.
var annotation = regexp.MustCompile(`(?m)^[ \t]*// Copied from:.*\n`)

// topLevelBlocks cuts the top-level message and enum definitions out of a
// rendered file by layout alone (keyword at column 0 up to a lone "}"), so
// that the verbatim check does not rely on the parser under test.
func topLevelBlocks(text string) []string {
	var blocks []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		if cur == nil && (strings.HasPrefix(line, "message ") || strings.HasPrefix(line, "enum ")) {
			cur = []string{}
		}
		if cur != nil {
			cur = append(cur, line)
			if line == "}" {
				blocks = append(blocks, strings.Join(cur, "\n"))
				cur = nil
			}
		}
	}
	return blocks
}

// fixture is the parsed reference inputs, their extraction with Keygate's
// plans and the parsed outputs, all keyed by package. Specs only read it.
type fixture struct {
	inputs  map[string]*schema.File
	sources map[string]string
	names   map[string]string
	outputs map[string]schema.Result
	parsed  map[string]*schema.File
}

var cachedFixture *fixture

// referenceFixture extracts the reference schemas once per test binary (the
// aiserver input is 1.2 MB) and skips the calling spec when they are absent.
func referenceFixture() *fixture {
	if cachedFixture != nil {
		return cachedFixture
	}
	sources := map[string]string{}
	for _, name := range []string{"agent_v1.proto", "aiserver_v1.proto"} {
		sources[name] = readReference(name)
	}
	fx := &fixture{
		inputs: map[string]*schema.File{}, sources: map[string]string{}, names: map[string]string{},
		outputs: map[string]schema.Result{}, parsed: map[string]*schema.File{},
	}
	for name, src := range sources {
		f := mustParse(src)
		fx.inputs[f.Package], fx.sources[f.Package], fx.names[f.Package] = f, src, name
		res, err := schema.Extract(f, filepath.Join(referenceDir(), name), planFor(f.Package))
		Expect(err).NotTo(HaveOccurred())
		fx.outputs[f.Package] = res
		fx.parsed[f.Package] = mustParse(string(res.Text))
	}
	cachedFixture = fx
	return fx
}

var _ = Describe("Keygate's extraction of the Cursor client schemas", func() {
	var (
		inputs  map[string]*schema.File // by package
		sources map[string]string       // input text by package
		names   map[string]string       // input file name by package
		outputs map[string]schema.Result
		parsed  map[string]*schema.File // parsed outputs by package
	)

	BeforeEach(func() {
		fx := referenceFixture()
		inputs, sources, names, outputs, parsed = fx.inputs, fx.sources, fx.names, fx.outputs, fx.parsed
	})

	It("gives identical bytes when run twice, wherever the input lives", func() {
		for pkg := range inputs {
			again, err := schema.Extract(mustParse(sources[pkg]), filepath.Join("elsewhere", names[pkg]), planFor(pkg))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(again.Text)).To(Equal(string(outputs[pkg].Text)), "package %s", pkg)
		}
	})

	It("equals the committed files under proto/cursor", func() {
		for pkg, res := range outputs {
			committed, err := os.ReadFile(filepath.Join(repoRoot, "proto", "cursor", planFor(pkg).Output))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(committed)).To(Equal(string(res.Text)), "proto/cursor for %s is stale: run task proto:extract", pkg)
		}
	})

	It("copies every definition's text from the input, only without the annotations", func() {
		for pkg, res := range outputs {
			stripped := annotation.ReplaceAllString(sources[pkg], "")
			blocks := topLevelBlocks(string(res.Text))
			Expect(blocks).To(HaveLen(res.KeptDecls))
			for _, block := range blocks {
				Expect(stripped).To(ContainSubstring("\n"+block+"\n"), "package %s", pkg)
			}
			Expect(string(res.Text)).NotTo(ContainSubstring("Copied from"))
			Expect(string(res.Text)).NotTo(ContainSubstring("go_package"))
		}
	})

	It("keeps all of agent.v1", func() {
		Expect(parsed["agent.v1"].Decls).To(HaveLen(len(inputs["agent.v1"].Decls)))
	})

	Describe("the aiserver.v1 closure", func() {
		var out *schema.File
		var roots []string

		BeforeEach(func() {
			out = parsed["aiserver.v1"]
			plan := planFor("aiserver.v1")
			roots = append([]string(nil), plan.Roots...)
			for _, s := range plan.Services {
				for _, m := range s.Methods {
					roots = append(roots, m.Input, m.Output)
				}
			}
		})

		It("holds every root, every service type and the types the brief names", func() {
			for _, name := range append(roots, "AgentUrlConfig", "Http2Config", "ModelDetails", "ModelParameterDefinition") {
				_, ok := out.Lookup(name)
				Expect(ok).To(BeTrue(), "%s is missing", name)
			}
		})

		It("resolves every reference inside it to a definition inside it", func() {
			all := declNames(out.Decls)
			kept, _, err := schema.Closure(out, all)
			Expect(err).NotTo(HaveOccurred())
			Expect(declNames(kept)).To(Equal(all))
		})

		It("holds nothing the roots do not reach", func() {
			reached, _, err := schema.Closure(out, roots)
			Expect(err).NotTo(HaveOccurred())
			Expect(declNames(reached)).To(Equal(declNames(out.Decls)))
		})

		It("is the same set the input's closure gives", func() {
			fromInput, _, err := schema.Closure(inputs["aiserver.v1"], roots)
			Expect(err).NotTo(HaveOccurred())
			Expect(declNames(out.Decls)).To(Equal(declNames(fromInput)))
		})

		It("is a small fraction of the client file", func() {
			Expect(len(outputs["aiserver.v1"].Text) * 10).To(BeNumerically("<", len(sources["aiserver.v1"])))
		})

		DescribeTable("leaves out definitions no root reaches",
			func(name string) {
				_, inInput := inputs["aiserver.v1"].Lookup(name)
				Expect(inInput).To(BeTrue(), "%s should exist in the input for this spec to mean anything", name)
				_, inOutput := out.Lookup(name)
				Expect(inOutput).To(BeFalse())
			},
			Entry("a message of an unplanned service", "AbortAgentStoreMultipartWritesRequest"),
			Entry("the request of an unplanned method", "StreamCursorTutorRequest"),
			Entry("a nested type of an unreached message", "StreamChatToolformerResponse.Thought"),
		)
	})

	DescribeTable("keeps the field numbers of the wire messages",
		func(pkg, message, field string, number int) {
			Expect(lookup(inputs[pkg], message)).To(HaveProtoField(field, number), "input")
			Expect(lookup(parsed[pkg], message)).To(HaveProtoField(field, number), "output")
		},
		Entry(nil, "agent.v1", "AgentClientMessage", "run_request", 1),
		Entry(nil, "agent.v1", "AgentClientMessage", "exec_client_message", 2),
		Entry(nil, "agent.v1", "AgentClientMessage", "kv_client_message", 3),
		Entry(nil, "agent.v1", "AgentClientMessage", "conversation_action", 4),
		Entry(nil, "agent.v1", "AgentClientMessage", "exec_client_control_message", 5),
		Entry(nil, "agent.v1", "AgentClientMessage", "interaction_response", 6),
		Entry(nil, "agent.v1", "AgentClientMessage", "client_heartbeat", 7),
		Entry(nil, "agent.v1", "AgentClientMessage", "prewarm_request", 8),
		Entry(nil, "agent.v1", "AgentServerMessage", "interaction_update", 1),
		Entry(nil, "agent.v1", "AgentServerMessage", "exec_server_message", 2),
		Entry(nil, "agent.v1", "AgentServerMessage", "conversation_checkpoint_update", 3),
		Entry(nil, "agent.v1", "AgentServerMessage", "kv_server_message", 4),
		Entry(nil, "agent.v1", "AgentServerMessage", "exec_server_control_message", 5),
		Entry(nil, "agent.v1", "AgentServerMessage", "interaction_query", 7),
		Entry(nil, "agent.v1", "AgentServerMessage", "ttft_breakdown", 8),
		Entry(nil, "agent.v1", "BidiRequestId", "request_id", 1),
		Entry(nil, "agent.v1", "AgentRunRequest", "run_id", 25),
		Entry(nil, "aiserver.v1", "GetServerConfigResponse", "config_version", 6),
		Entry(nil, "aiserver.v1", "GetServerConfigResponse", "http2_config", 7),
		Entry(nil, "aiserver.v1", "GetServerConfigResponse", "agent_url_config", 27),
		Entry(nil, "aiserver.v1", "GetServerConfigResponse", "cli_sandbox_default_enabled", 28),
		Entry(nil, "aiserver.v1", "AgentUrlConfig", "agentn_url", 2),
		Entry(nil, "aiserver.v1", "BidiAppendRequest", "data", 1),
		Entry(nil, "aiserver.v1", "BidiAppendRequest", "request_id", 2),
		Entry(nil, "aiserver.v1", "BidiAppendRequest", "append_seqno", 3),
		Entry(nil, "aiserver.v1", "BidiAppendRequest", "data_binary", 4),
		Entry(nil, "aiserver.v1", "GetUsableModelsRequest", "custom_model_ids", 1),
		Entry(nil, "aiserver.v1", "GetDefaultModelResponse", "next_default_set_date", 4),
		Entry(nil, "aiserver.v1", "StreamCppRequest", "current_file", 1),
		Entry(nil, "aiserver.v1", "StreamCppRequest", "file_diff_histories", 7),
		Entry(nil, "aiserver.v1", "StreamCppRequest", "additional_files", 19),
		Entry(nil, "aiserver.v1", "StreamCppResponse", "done_stream", 4),
		Entry(nil, "aiserver.v1", "StreamCppResponse", "range_to_replace", 11),
		Entry(nil, "aiserver.v1", "StreamCppResponse", "cursor_prediction_target", 12),
		Entry(nil, "aiserver.v1", "StreamCppResponse", "done_edit", 13),
		Entry(nil, "aiserver.v1", "StreamCppResponse", "begin_edit", 15),
		Entry(nil, "aiserver.v1", "CppConfigResponse", "cpp_url", 13),
		Entry(nil, "aiserver.v1", "RecordCppFateRequest", "fate", 3),
		Entry(nil, "aiserver.v1", "AvailableCppModelsResponse", "models", 1),
	)
})
