package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"keygate/adapters/pgtest"
	controlv1 "keygate/gen/keygate/control/v1"
)

// settings are the run's knobs; the report prints them.
type settings struct {
	Duration             time.Duration
	Replicas, Clients    int
	KillEvery            time.Duration
	RestartAfter         time.Duration
	TermShare            float64
	Keep                 bool
	Race                 bool
	LogLevel             string
	DropProbability      float64
	Seed                 uint64
	TurnsPerConversation int
	Tokens               int
	TokenInterval        time.Duration
	TurnTimeout          time.Duration
	Short                bool
}

func main() {
	s := settings{}
	flag.DurationVar(&s.Duration, "duration", 3*time.Minute, "how long clients start new turns (the last ones finish after)")
	flag.IntVar(&s.Replicas, "replicas", 3, "keygate serve processes on the one database")
	flag.IntVar(&s.Clients, "clients", 8, "simulated members, each running conversations one turn after another")
	flag.DurationVar(&s.KillEvery, "kill-every", 15*time.Second, "mean time between SIGKILLs of a random replica (0: none)")
	flag.DurationVar(&s.RestartAfter, "restart-after", time.Second, "how long a killed replica stays down")
	flag.Float64Var(&s.TermShare, "sigterm", 0.25, "share of the stops that are a rolling deploy's SIGTERM (SIGKILL after 30 s) rather than a SIGKILL")
	flag.Float64Var(&s.DropProbability, "drop", 0.15, "share of turns whose RunSSE connection the harness cuts mid-turn")
	seed := flag.Int64("seed", 0, "seed of the kills, drops and request ids (0: from the clock; printed in the report)")
	flag.IntVar(&s.TurnsPerConversation, "turns", 4, "turns per conversation before a client starts another")
	flag.IntVar(&s.Tokens, "tokens", 8, "streamed pieces of each model answer")
	flag.DurationVar(&s.TokenInterval, "token-interval", 25*time.Millisecond, "the fake provider's pace between pieces")
	flag.DurationVar(&s.TurnTimeout, "turn-timeout", 90*time.Second, "a turn not completed by then (resumes included) is given up")
	flag.BoolVar(&s.Short, "short", false, "the CI form: 20 s, 4 clients, a kill every 8 s, 25 s turn timeout (flags given explicitly still win)")
	flag.BoolVar(&s.Race, "race", false, "build keygate with the race detector; a data race in a replica's log is a hard failure")
	flag.BoolVar(&s.Keep, "keep", false, "keep the work directory (the replicas' logs replica-N.log, their data directories, the clients' workspaces) and the database")
	flag.StringVar(&s.LogLevel, "log-level", "warn", "the replicas' log level (debug, info, warn, error): info and debug follow a turn across replicas, for a slow recovery")
	out := flag.String("out", "", "markdown file whose generated section (between the kgchaos markers, else appended) the report replaces; empty: standard output only")
	flag.Parse()
	if s.Short {
		explicit := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
		short := map[string]func(){
			"duration": func() { s.Duration = 20 * time.Second }, "clients": func() { s.Clients = 4 },
			"kill-every": func() { s.KillEvery = 8 * time.Second }, "turn-timeout": func() { s.TurnTimeout = 25 * time.Second },
		}
		for name, set := range short {
			if !explicit[name] {
				set()
			}
		}
	}
	s.Seed = uint64(*seed)
	if s.Seed == 0 {
		s.Seed = uint64(time.Now().UnixNano())
	}
	r, err := execute(s)
	if r != nil {
		text := r.markdown()
		fmt.Print(text)
		if *out != "" {
			if werr := writeSection(*out, text); werr != nil {
				err = errors.Join(err, werr)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kgchaos:", err)
		os.Exit(1)
	}
	if v := r.violations(); len(v) > 0 {
		fmt.Fprintln(os.Stderr, "kgchaos: invariants broken:\n  - "+strings.Join(v, "\n  - "))
		os.Exit(1)
	}
}

// execute runs the whole soak: a fresh database, the fake provider, the
// built binary as replicas behind the balancer, the members and the chaos,
// then the checks. A non-nil report comes back whenever the soak ran.
func execute(s settings) (*report, error) {
	ctx := context.Background()
	started := time.Now()
	step := func(what string) {
		fmt.Fprintf(os.Stderr, "kgchaos: %s (%.1fs)\n", what, time.Since(started).Seconds())
	}
	dir, err := os.MkdirTemp("", "kgchaos-")
	if err != nil {
		return nil, err
	}
	if s.Keep {
		fmt.Fprintf(os.Stderr, "kgchaos: keeping the replicas' logs and data in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}

	step("building keygate")
	bin, err := build(ctx, dir, s.Race)
	if err != nil {
		return nil, err
	}
	db, err := pgtest.New(ctx)
	if err != nil {
		return nil, err
	}
	// A database on a throwaway cluster goes with the cluster, which no
	// run leaves behind.
	if s.Keep && !strings.HasPrefix(db.Source, "throwaway") {
		fmt.Fprintf(os.Stderr, "kgchaos: keeping the database %s\n", db.DSN)
	} else {
		defer db.Close()
	}
	prov := newProvider(s.Tokens, s.TokenInterval)
	defer prov.close()

	cl, err := newCluster(bin, dir, db.DSN, prov.srv.Listener.Addr().String(), s.Replicas, s.LogLevel)
	if err != nil {
		return nil, err
	}
	defer cl.stop()
	// The soak stops by itself; this bounds it should a turn or a replica
	// hang the harness itself.
	watchdog := time.AfterFunc(s.Duration+s.TurnTimeout+2*time.Minute, func() {
		fmt.Fprintln(os.Stderr, "kgchaos: the soak overran its bound; killing the replicas")
		cl.stop()
		os.Exit(2)
	})
	defer watchdog.Stop()
	step(fmt.Sprintf("starting %d replicas on %s", s.Replicas, db.Source))
	for _, r := range cl.replicas {
		if err := cl.start(ctx, r); err != nil {
			return nil, err
		}
	}
	console := cl.replicas[0].console
	model, err := createModel(console, prov.srv.URL)
	if err != nil {
		return nil, err
	}
	lb, err := newBalancer(cl.replicas)
	if err != nil {
		return nil, err
	}
	defer lb.close()

	run := fmt.Sprintf("r%x", s.Seed%0xfffff)
	errs := &tally{}
	roots := cl.ca.Pool()
	var members []*member
	for i := range s.Clients {
		token, err := memberToken(console, fmt.Sprintf("member-%d@corp.test", i))
		if err != nil {
			return nil, err
		}
		m, err := newMember(i, run, model, lb.addr(), token, &s, roots, dir, prov, errs)
		if err != nil {
			return nil, err
		}
		members = append(members, m)
	}

	step(fmt.Sprintf("running %d members for %s, a replica killed every ~%s", s.Clients, s.Duration, s.KillEvery))
	rep := &report{Settings: s, Machine: describeMachine(), Started: started.UTC(), Source: db.Source}
	soak, stopSoak := context.WithTimeout(ctx, s.Duration)
	defer stopSoak()
	var wg sync.WaitGroup
	for _, m := range members {
		wg.Add(1)
		go func() { defer wg.Done(); m.loop(soak) }()
	}
	chaosErr := chaos(soak, cl, s, rep)
	step("time is up; waiting for the turns under way")
	wg.Wait()
	for _, m := range members {
		m.tr.CloseIdleConnections()
	}
	rep.Soaked = time.Since(started)

	step("checking the stored conversations and the clients' checkpoints")
	var convs []*convRecord
	for _, m := range members {
		convs = append(convs, m.convs...)
	}
	rep.collect(convs, prov, errs)
	if s.Keep {
		prov.saveUnplaced(dir)
	}
	rep.Panics, rep.Races = cl.panics()
	rep.Checkpoints = checkCheckpoints(convs)
	rep.Store, err = checkStore(ctx, db.DSN, convs, prov)
	rep.Took = time.Since(started)
	return rep, errors.Join(chaosErr, err)
}

// termGrace is how long a SIGTERMed replica may take to exit before it is
// killed, Kubernetes' default terminationGracePeriodSeconds.
const termGrace = 30 * time.Second

// chaos kills a random live replica with SIGKILL about every s.KillEvery
// (uniformly between half and one and a half times), restarts it after
// s.RestartAfter, until ctx ends; then every replica is up again.
func chaos(ctx context.Context, cl *cluster, s settings, rep *report) error {
	if s.KillEvery <= 0 {
		<-ctx.Done()
		return nil
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0xc4a05))
	for {
		wait := s.KillEvery/2 + time.Duration(rng.Int64N(int64(s.KillEvery)))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		r := cl.replicas[rng.IntN(len(cl.replicas))]
		term := rng.Float64() < s.TermShare
		fmt.Fprintf(os.Stderr, "kgchaos: %s stopping replica %d (%s)\n", time.Now().UTC().Format("15:04:05.000"), r.n, map[bool]string{true: "SIGTERM", false: "SIGKILL"}[term])
		if term {
			// A rolling deploy: SIGTERM, and the orchestrator's grace
			// period before SIGKILL.
			rep.Terms++
			if !cl.terminate(r, termGrace) {
				rep.TermKilled++
			}
		} else {
			cl.kill(r)
			rep.Kills++
		}
		time.Sleep(s.RestartAfter)
		if err := cl.start(context.WithoutCancel(ctx), r); err != nil {
			return fmt.Errorf("restart after a kill: %w", err)
		}
		rep.Restarts++
	}
}

// createModel configures the fake provider as an enabled OpenAI Chat
// model with tools, as an administrator does in the console, and returns
// its id.
func createModel(console, providerURL string) (string, error) {
	body, err := protojson.Marshal(&controlv1.CreateModelRequest{Settings: &controlv1.ModelSettings{DisplayName: "Chaos GPT",
		ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: providerURL, ModelId: "chaos-gpt", SupportsTools: true},
		ApiKey: "sk-kgchaos-0123456789", Enabled: true})
	if err != nil {
		return "", err
	}
	raw, err := asUser(console, "admin@corp.test", adminGroup, "/keygate.control.v1.ModelService/CreateModel", body, http.StatusOK)
	if err != nil {
		return "", err
	}
	var out controlv1.CreateModelResponse
	if err := protojson.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("create model: %w", err)
	}
	if out.GetModel().GetId() == "" {
		return "", errors.New("create model: no id in the answer")
	}
	return out.GetModel().GetId(), nil
}

// memberToken creates a personal gateway token for user, as the member
// does in the console, and returns its text.
func memberToken(console, user string) (string, error) {
	raw, err := asUser(console, user, "staff", "/auth/tokens", []byte(`{"name":"kgchaos"}`), http.StatusCreated)
	if err != nil {
		return "", err
	}
	var out struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	if out.Secret == "" {
		return "", errors.New("create token: no secret in the answer")
	}
	return out.Secret, nil
}

// asUser posts a JSON body to the console as the authenticating proxy
// forwards user's request, and returns the answer's body.
func asUser(console, user, groups, path string, body []byte, want int) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, "http://"+console+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(userHeader, user)
	req.Header.Set(groupsHeader, groups)
	hc := http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("post %s: %w", path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("post %s: %d %s", path, resp.StatusCode, raw)
	}
	return raw, nil
}
