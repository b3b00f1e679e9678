package teams_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/teams"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/team"
	"keygate/ports"
)

// recorder is a ModelProvider that counts the calls it let through.
type recorder struct{ calls []string }

func (r *recorder) Stream(_ context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	r.calls = append(r.calls, call.Endpoint.Route)
	return nil, nil
}

type mappings map[string]string

func (m mappings) ModelMapping(_ context.Context, id string) (ports.ModelMapping, error) {
	t, ok := m[id]
	if !ok {
		return ports.ModelMapping{}, ports.ErrNotFound
	}
	return ports.ModelMapping{CursorModel: id, Target: t}, nil
}

type source []string

func (s source) Published(context.Context) ([]ports.ModelConfig, error) {
	var out []ports.ModelConfig
	for _, id := range s {
		out = append(out, ports.ModelConfig{ID: id})
	}
	return out, nil
}

var _ = Describe("model access", func() {
	var (
		f    *fake
		next *recorder
		mp   ports.ModelProvider
		svc  *teams.Service
		as   = func(u string) context.Context {
			return identity.NewContext(context.Background(), identity.Identity{UserID: u})
		}
		call = func(route string) ports.ModelCall { return ports.ModelCall{Endpoint: ports.Endpoint{Route: route}} }
	)
	BeforeEach(func() {
		f, next = newFake(), &recorder{}
		svc = teams.New(f, f, f)
		Expect(svc.Put(context.Background(), team.Team{Name: "web", Restricted: true, Models: []string{"fast"}})).To(Succeed())
		f.groups["ada"] = []string{"web"}
		mp = svc.Provider(next, mappings{"default": "fast", "gpt-5": "opus"})
	})

	It("refuses a model outside the caller's list before the provider, with a message naming it", func() {
		_, err := mp.Stream(as("ada"), call("opus"))
		Expect(err).To(MatchError(team.ErrNotAllowed))
		Expect(err.Error()).To(ContainSubstring(`"opus"`))
		Expect(next.calls).To(BeEmpty())
	})

	It("lets through a listed model, and a Cursor id mapped onto one", func() {
		_, err := mp.Stream(as("ada"), call("fast"))
		Expect(err).NotTo(HaveOccurred())
		_, err = mp.Stream(as("ada"), call("default"))
		Expect(err).NotTo(HaveOccurred())
		_, err = mp.Stream(as("ada"), call("gpt-5"))
		Expect(err).To(MatchError(team.ErrNotAllowed), "mapped onto a model off the list")
		Expect(next.calls).To(Equal([]string{"fast", "default"}))
	})

	It("lets a user in no team use anything, and refuses a call with no caller", func() {
		_, err := mp.Stream(as("bob"), call("opus"))
		Expect(err).NotTo(HaveOccurred())
		_, err = mp.Stream(context.Background(), call("fast"))
		Expect(err).To(MatchError(identity.ErrNoUser))
	})

	It("checks an unrouted call unless it is the console's connection test", func() {
		_, err := mp.Stream(as("ada"), ports.ModelCall{Kind: callrecord.KindTest})
		Expect(err).NotTo(HaveOccurred())
		_, err = mp.Stream(as("ada"), ports.ModelCall{Kind: callrecord.KindTab})
		Expect(err).To(MatchError(team.ErrNotAllowed))
	})

	It("narrows a published list to the caller's models, the whole list without a caller", func() {
		src := svc.Published(source{"fast", "opus", "auto"})
		got, err := src.Published(as("ada"))
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(HaveLen(1))
		Expect(got[0].ID).To(Equal("fast"))
		all, err := src.Published(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(all).To(HaveLen(3))
		bob, err := src.Published(as("bob"))
		Expect(err).NotTo(HaveOccurred())
		Expect(bob).To(HaveLen(3))
	})
})
