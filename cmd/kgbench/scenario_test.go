package main

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("The scenario table", func() {
	It("names each scenario once, and each name has its section in the report's templates", func() {
		names := scenarioNames(scenarios)
		Expect(names).To(HaveLen(len(scenarios)))
		seen := map[string]bool{}
		for _, n := range names {
			Expect(n).NotTo(BeEmpty())
			Expect(seen).NotTo(HaveKey(n), "scenario %q twice", n)
			seen[n] = true
			Expect(reportTemplate.Lookup("section "+n)).NotTo(BeNil(), "no template \"section %s\"", n)
		}
	})

	DescribeTable("-only picks exactly the scenarios it names, in the table's order",
		func(only string, want []string) {
			picked, err := pick(scenarios, only)
			Expect(err).NotTo(HaveOccurred())
			Expect(scenarioNames(picked)).To(Equal(want))
		},
		Entry("none named: all of them", "", scenarioNames(scenarios)),
		Entry("one", "turnstart", []string{"turnstart"}),
		Entry("another", "store", []string{"store"}),
		Entry("several, out of order, with spaces", "routing, latency", []string{"latency", "routing"}),
		Entry("one named twice", "checkpoint,checkpoint", []string{"checkpoint"}),
	)

	It("refuses a name the table does not have, before anything runs", func() {
		_, err := pick(scenarios, "latency,turn-start")
		Expect(err).To(MatchError(ErrUnknownScenario))
		Expect(err.Error()).To(ContainSubstring(`"turn-start"`))
		Expect(execute([]string{"-only", "nope"}, GinkgoWriter)).To(MatchError(ErrUnknownScenario))
	})
})

var _ = Describe("The command line", func() {
	It("lists the scenarios and the children in its help", func() {
		var out bytes.Buffer
		Expect(execute([]string{"-h"}, &out)).To(Succeed())
		for _, n := range append(scenarioNames(scenarios), keygateChild.name, appChild.name) {
			Expect(out.String()).To(ContainSubstring(n))
		}
	})

	DescribeTable("refuses what no subcommand takes",
		func(args ...string) {
			Expect(execute(args, GinkgoWriter)).To(MatchError(ErrUsage))
		},
		Entry("an unknown subcommand", "serve-nothing"),
		Entry("a child without its address", appChild.name),
		Entry("a child with an argument left over", keygateChild.name, "-provider", "http://127.0.0.1:1", "extra"),
		Entry("the benchmark's flags before a child", "-quick", appChild.name, "-traces", "http://127.0.0.1:1"),
	)

	It("gives each child the address it needs as its flag", func() {
		Expect(keygateChild.args("http://p")).To(Equal([]string{"serve-keygate", "-provider", "http://p"}))
		Expect(appChild.args("http://t")).To(Equal([]string{"serve-app", "-traces", "http://t"}))
		for _, c := range []child{keygateChild, appChild} {
			found, ok := childNamed(c.name)
			Expect(ok).To(BeTrue())
			Expect(found.flag).To(Equal(c.flag))
		}
	})
})
