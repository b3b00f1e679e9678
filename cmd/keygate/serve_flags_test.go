package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// golden is testdata/serve-config.golden: serve's flags (name to "bool" or
// "value") and environment variables as app/config defined them before the
// command line moved to cobra.
func golden() (flags map[string]string, env []string) {
	GinkgoHelper()
	f, err := os.Open("testdata/serve-config.golden")
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	flags = map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 3 && fields[0] == "flag":
			flags[strings.TrimPrefix(fields[1], "--")] = fields[2]
		case len(fields) == 2 && fields[0] == "env":
			env = append(env, fields[1])
		}
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	Expect(flags).To(HaveLen(44), "the golden file lists every flag")
	Expect(env).To(HaveLen(51), "the golden file lists every variable")
	return flags, env
}

// cleanEnv is this process's environment without Keygate's and
// OpenTelemetry's variables, which would change what serve reads.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KEYGATE_") && !strings.HasPrefix(kv, "OTEL_") {
			out = append(out, kv)
		}
	}
	return out
}

// quietly runs the binary in cleanEnv and waits for it.
func quietly(args ...string) *gexec.Session {
	GinkgoHelper()
	cmd := exec.Command(binary, args...)
	cmd.Env = cleanEnv()
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s, 10*time.Second).Should(gexec.Exit())
	return s
}

var (
	helpFlag = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)`)
	envName  = regexp.MustCompile(`\b[A-Z][A-Z0-9_]{2,}\b`)
)

// exposed are the flags and environment variables a command's --help
// shows.
func exposed(args ...string) (flags, env []string) {
	GinkgoHelper()
	s := quietly(append(args, "--help")...)
	Expect(s).To(gexec.Exit(0))
	out := string(s.Out.Contents())
	for _, m := range helpFlag.FindAllStringSubmatch(out, -1) {
		flags = append(flags, m[1])
	}
	_, vars, found := strings.Cut(out, "Environment variables it reads")
	Expect(found).To(BeTrue(), "the help lists the environment variables")
	return flags, envName.FindAllString(vars, -1)
}

var _ = Describe("keygate serve's flags and environment variables", func() {
	It("keeps every flag and variable serve had, by name, as its --help shows them", func() {
		want, wantEnv := golden()
		flags, env := exposed("serve")
		for name := range want {
			Expect(flags).To(ContainElement(name), "serve --%s", name)
		}
		Expect(env).To(ContainElements(wantEnv))
	})

	It("reads every one of those flags as before: -flag=v, --flag v and a bare --switch", func() {
		want, _ := golden()
		var args []string
		for name, kind := range want {
			switch kind {
			case "bool":
				args = append(args, "-"+name+"=true", "--"+name)
			default:
				args = append(args, "-"+name+"=1s", "--"+name, "1s")
			}
		}
		By("parsing them all, then stopping at --help before anything starts")
		s := quietly(append(append([]string{"serve"}, args...), "--help")...)
		Expect(s).To(gexec.Exit(0), string(s.Err.Contents()))
		Expect(s.Out.Contents()).To(ContainSubstring("keygate serve [flags]"))
	})

	It("gives doctor and the adopt commands serve's flags and variables", func() {
		want, wantEnv := golden()
		for _, cmd := range [][]string{{"doctor"}, {"ca", "adopt"}, {"secret", "adopt"}} {
			flags, env := exposed(cmd...)
			for name := range want {
				Expect(flags).To(ContainElement(name), "%v --%s", cmd, name)
			}
			Expect(env).To(ContainElements(wantEnv), "%v", cmd)
		}
	})

	It("runs serve without a command, also with flags first", func() {
		s := quietly("--listen", "no-port")
		Expect(s).To(gexec.Exit(2))
		Expect(string(s.Err.Contents())).To(ContainSubstring(`listen address "no-port"`))

		By("reading serve's configuration with no argument at all (an address that cannot listen keeps it from starting)")
		cmd := exec.Command(binary)
		cmd.Env = append(cleanEnv(), "KEYGATE_LISTEN=no-port-either")
		session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(session, 10*time.Second).Should(gexec.Exit(2))
		Expect(string(session.Err.Contents())).To(ContainSubstring(`listen address "no-port-either"`))
	})
})
