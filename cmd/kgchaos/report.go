package main

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// report is what one soak measured.
type report struct {
	Settings          settings
	Machine           string
	Source            string
	Started           time.Time
	Soaked, Took      time.Duration
	Kills, Restarts   int
	Terms, TermKilled int
	Panics, Races     int
	Turns, Completed  int
	Resumed, GivenUp  int
	Dropped           int
	Resent            int64
	Abandoned         int64
	Conversations     int
	Calls, Finished   int
	Repeated          []roundKey
	// failures are each turn's failed attempts, to explain its findings.
	failures     map[roundKey][]string
	UnknownCalls int
	Unplaced     []string
	Added        []time.Duration
	Recovery     []time.Duration
	// Waited and Finishing split each recovered turn's recovery: the
	// failed attempts and pauses before the attempt that completed it,
	// and that attempt; CompletedBy counts those attempts by kind.
	Waited, Finishing []time.Duration
	CompletedBy       map[string]int
	// Slowest are the recovered turns with the longest recoveries.
	Slowest []*turnRecord
	// GaveUp are the turns given up, for their timelines.
	GaveUp            []*turnRecord
	Errors            map[string]int
	Store             findings
	Checkpoints       findings
	Commit, GoVersion string
}

// collect counts the clients' turns, the provider's calls and the errors.
func (r *report) collect(convs []*convRecord, prov *provider, errs *tally) {
	r.failures = map[roundKey][]string{}
	for _, c := range convs {
		if len(c.turns) > 0 {
			r.Conversations++
		}
		if c.window != nil {
			r.Resent += c.window.Resent()
			r.Abandoned += c.window.Abandoned()
		}
		for _, t := range c.turns {
			r.failures[roundKey{conv: c.id, turn: t.n}] = t.failures
			r.Turns++
			if t.completed {
				r.Completed++
				if t.resumes > 0 {
					r.Resumed++
					r.Recovery = append(r.Recovery, t.recovery)
					r.split(t)
				} else if t.added > 0 {
					r.Added = append(r.Added, t.added)
				}
			} else {
				r.GivenUp++
				r.GaveUp = append(r.GaveUp, t)
			}
			if t.dropped {
				r.Dropped++
			}
		}
	}
	r.Calls, r.Finished, r.Repeated, r.UnknownCalls = prov.stats()
	r.Unplaced = prov.unplacedShapes()
	r.Errors = errs.snapshot()
	slices.Sort(r.Added)
	slices.Sort(r.Recovery)
	slices.Sort(r.Waited)
	slices.Sort(r.Finishing)
	slices.SortFunc(r.Slowest, func(a, b *turnRecord) int { return cmp.Compare(b.recovery, a.recovery) })
	if len(r.Slowest) > slowestShown {
		r.Slowest = r.Slowest[:slowestShown]
	}
	r.GoVersion = runtime.Version()
	if out, err := exec.Command("git", "describe", "--always", "--dirty").Output(); err == nil {
		r.Commit = strings.TrimSpace(string(out))
	}
}

// slowestShown is how many of the slowest recoveries the report details.
const slowestShown = 5

// split adds a recovered turn's timeline to the recovery breakdown.
func (r *report) split(t *turnRecord) {
	if len(t.steps) == 0 {
		return
	}
	if r.CompletedBy == nil {
		r.CompletedBy = map[string]int{}
	}
	last := t.steps[len(t.steps)-1]
	var before time.Duration
	for _, s := range t.steps[:len(t.steps)-1] {
		before += s.took
	}
	r.Waited = append(r.Waited, before)
	r.Finishing = append(r.Finishing, last.took)
	r.CompletedBy[last.what]++
	r.Slowest = append(r.Slowest, t)
}

// timeline renders a recovered turn's steps.
func timeline(t *turnRecord) string {
	parts := []string{"first attempt (request id " + t.requestID + "): " + brokenBy(t.failures[:min(1, len(t.failures))], "?")}
	for _, s := range t.steps {
		switch {
		case s.what == "pause":
			parts = append(parts, "pause "+ms(s.took))
		case s.outcome == "":
			parts = append(parts, s.what+" "+ms(s.took)+" completed")
		default:
			parts = append(parts, s.what+" "+ms(s.took)+" ("+s.outcome+")")
		}
	}
	if t.abandoned > 0 {
		parts = append(parts, fmt.Sprintf("(%d replies numbered and given up with a cut stream)", t.abandoned))
	}
	return strings.Join(parts, "; ")
}

// violations are the hard failures (see the package doc), the same in
// both forms: what the harness itself could not do, and invariants main
// keeps under these faults. A turn lost from the store fails CI's short
// form too since the relay hands a dead owner's opening append over.
func (r *report) violations() []string {
	var v []string
	if r.Completed == 0 {
		v = append(v, "no turn completed: the harness or the stack is broken")
	}
	if r.Panics > 0 {
		v = append(v, fmt.Sprintf("%d panics in the replicas' logs", r.Panics))
	}
	if r.Races > 0 {
		v = append(v, fmt.Sprintf("%d data races in the replicas' logs", r.Races))
	}
	if r.UnknownCalls > 0 {
		v = append(v, fmt.Sprintf("%d provider requests without a turn marker", r.UnknownCalls))
	}
	if r.Store.Duplicated > 0 {
		v = append(v, fmt.Sprintf("%d duplicated messages in the stored conversations", r.Store.Duplicated))
	}
	if r.Store.Lost > 0 {
		v = append(v, fmt.Sprintf("%d messages of completed turns missing from the stored conversations", r.Store.Lost))
	}
	return v
}

const noFailure = "no failure the client saw"

// brokenBy lists a turn's failed attempts in order, or says none when the
// client saw none.
func brokenBy(failures []string, none string) string {
	if len(failures) == 0 {
		return none
	}
	return strings.Join(failures, ", then ")
}

// writeCounts writes table rows, the largest count first.
func writeCounts(w func(string, ...any), counts map[string]int) {
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if d := counts[b] - counts[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, k := range kinds {
		w("| %s | %d |\n", k, counts[k])
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(float64(len(d)-1) * p)
	return d[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func (r *report) markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	s := r.Settings
	form := "long"
	if s.Short {
		form = "short (CI)"
	}
	w("## Soak and chaos: %s form, %s\n\n", form, r.Started.Format("2006-01-02 15:04 UTC"))
	w("Machine: %s; %s; commit %s. Database: a fresh one on %s.\n\n", r.Machine, r.GoVersion, r.Commit, r.Source)
	w("Settings: %d replicas of the built `keygate serve` in company mode (trusted-header sign-in, gateway tokens, "+
		"company CA and shared key) behind the harness's round-robin TCP balancer; %d members; %s of new turns "+
		"(took %s in all, %s with the checks); a replica stopped about every %s (%.0f%% of the stops SIGTERM as in a rolling deploy, the others SIGKILL) and restarted %s later; %.0f%% of turns "+
		"have their RunSSE cut mid-turn; %d turns per conversation, each with 1 or 2 Read rounds; the fake provider "+
		"streams %d pieces %s apart; turn timeout %s; seed %d.\n\n",
		s.Replicas, s.Clients, s.Duration, r.Soaked.Round(time.Second), r.Took.Round(time.Second), s.KillEvery, s.TermShare*100, s.RestartAfter,
		s.DropProbability*100, s.TurnsPerConversation, s.Tokens, s.TokenInterval, s.TurnTimeout, s.Seed)
	w("| Measure | Value |\n|---|---|\n")
	w("| replicas SIGKILLed / SIGTERMed (of which killed after the grace) / restarted | %d / %d (%d) / %d |\n", r.Kills, r.Terms, r.TermKilled, r.Restarts)
	w("| conversations | %d |\n", r.Conversations)
	w("| turns started | %d |\n", r.Turns)
	w("| turns completed | %d |\n", r.Completed)
	w("| of which after a reconnect or resume | %d |\n", r.Resumed)
	w("| turns given up (no turn_ended within the timeout) | %d |\n", r.GivenUp)
	w("| turns whose RunSSE the harness cut | %d |\n", r.Dropped)
	w("| appends sent again after a network failure (same seqno) | %d |\n", r.Resent)
	w("| replies numbered and then given up because their stream was cut (the server may never see that seqno) | %d |\n", r.Abandoned)
	w("| messages lost, stored conversations | %d |\n", r.Store.Lost)
	w("| messages duplicated, stored conversations | %d |\n", r.Store.Duplicated)
	w("| conversations missing from the store | %d |\n", r.Store.Missing)
	w("| messages lost, clients' checkpoints | %d |\n", r.Checkpoints.Lost)
	w("| messages duplicated, clients' checkpoints | %d |\n", r.Checkpoints.Duplicated)
	w("| model calls / finished | %d / %d |\n", r.Calls, r.Finished)
	w("| model calls repeated (a round sampled again after its call finished) | %d |\n", len(r.Repeated))
	w("| added latency p50 / p99 / max (%d turns completed on their first stream) | %s / %s / %s |\n",
		len(r.Added), ms(percentile(r.Added, 0.5)), ms(percentile(r.Added, 0.99)), ms(percentile(r.Added, 1)))
	w("| time to recover p50 / p99 / max (%d turns completed after a reconnect or resume: first failure to turn_ended) | %s / %s / %s |\n",
		len(r.Recovery), ms(percentile(r.Recovery, 0.5)), ms(percentile(r.Recovery, 0.99)), ms(percentile(r.Recovery, 1)))
	w("| of the recovery: failed attempts and pauses before the completing attempt p50 / p99 | %s / %s |\n",
		ms(percentile(r.Waited, 0.5)), ms(percentile(r.Waited, 0.99)))
	w("| of the recovery: the completing attempt p50 / p99 | %s / %s |\n",
		ms(percentile(r.Finishing, 0.5)), ms(percentile(r.Finishing, 0.99)))
	w("| panics in the replicas' logs | %d |\n", r.Panics)
	if s.Race {
		w("| data races in the replicas' logs (built with -race) | %d |\n", r.Races)
	}
	w("\n")
	if len(r.Repeated) > 0 {
		causes := map[string]int{}
		for _, k := range r.Repeated {
			first := noFailure
			if f := r.failures[roundKey{conv: k.conv, turn: k.turn}]; len(f) > 0 {
				first = f[0]
			}
			causes[first]++
		}
		w("Repeated model calls by what first broke their turn:\n\n| First failure | Repeated calls |\n|---|---|\n")
		writeCounts(w, causes)
		w("\n")
	}
	if len(r.CompletedBy) > 0 {
		w("Recovered turns by the attempt that completed them:\n\n| Attempt | Turns |\n|---|---|\n")
		writeCounts(w, r.CompletedBy)
		w("\n")
	}
	if len(r.GaveUp) > 0 {
		w("Turns given up:\n\n")
		for i, t := range r.GaveUp {
			if i == slowestShown {
				break
			}
			w("- %s t%d: %s\n", t.conv, t.n, timeline(t))
		}
		w("\n")
	}
	if len(r.Slowest) > 0 {
		w("Slowest recoveries:\n\n")
		for _, t := range r.Slowest {
			w("- %s t%d, %s: %s\n", t.conv, t.n, ms(t.recovery), timeline(t))
		}
		w("\n")
	}
	if len(r.Errors) > 0 {
		w("Errors by kind (a turn may count several):\n\n| Kind | Count |\n|---|---|\n")
		writeCounts(w, r.Errors)
		w("\n")
	}
	examples := append(append([]string(nil), r.Store.Examples...), r.Checkpoints.Examples...)
	for i, k := range r.Repeated {
		if i == 4 {
			break
		}
		why := brokenBy(r.failures[roundKey{conv: k.conv, turn: k.turn}], noFailure)
		examples = append(examples, fmt.Sprintf("provider: %s t%d round %d sampled again after its call finished (the turn: %s)", k.conv, k.turn, k.round, why))
	}
	for _, u := range r.Unplaced {
		examples = append(examples, "provider: a request without a turn marker: "+u)
	}
	if len(examples) > 0 {
		w("Examples:\n\n")
		for _, e := range examples {
			w("- %s\n", e)
		}
		w("\n")
	}
	if v := r.violations(); len(v) > 0 {
		w("Hard failures: %s.\n\n", strings.Join(v, "; "))
	} else {
		w("Hard failures: none.\n\n")
	}
	return b.String()
}

// describeMachine names the CPU, its cores and the memory.
func describeMachine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.1f GiB RAM", float64(kb)/(1<<20))
		}
	}
	return fmt.Sprintf("%s, %d cores%s, %s/%s", model, runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH)
}

// The generated section of the report file lies between these lines; the
// rest of the file is written by hand.
const (
	sectionBegin = "<!-- kgchaos: generated section, replaced by each run of task chaos -->"
	sectionEnd   = "<!-- kgchaos: end of generated section -->"
)

// writeSection replaces the generated section of path with text, or
// appends one when the file has none (creating the file if need be).
func writeSection(path, text string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	section := sectionBegin + "\n\n" + text + sectionEnd + "\n"
	doc := string(old)
	begin, end := strings.Index(doc, sectionBegin), strings.Index(doc, sectionEnd)
	switch {
	case begin >= 0 && end > begin:
		doc = doc[:begin] + section + strings.TrimPrefix(doc[end+len(sectionEnd):], "\n")
	case doc == "":
		doc = section
	default:
		doc = strings.TrimRight(doc, "\n") + "\n\n" + section
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}
