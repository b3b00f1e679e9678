package secretguard

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"

	"keygate/domain/secretscan"
)

// DefaultCacheEntries bounds the scan cache: a clean text costs a hash key
// and a flag, a redacted one its redacted copy.
const DefaultCacheEntries = 16384

// excludedRules are gitleaks rules the guard leaves out. generic-api-key
// matches any assignment of a high-entropy string to a name containing key,
// token, secret or password: in source code (test fixtures, hashes, ids) it
// is the set's main source of false positives, and redact mode, the company
// default, would rewrite that code in the model's view. It is also the
// costly one: its keywords occur in nearly all code, so its expression runs
// on almost every text, and with it a cold 50 KB prompt took about 9 times
// as long to scan (27.6 ms against 3.1 ms, BenchmarkGuard50KB, same run).
// Vendor-specific rules (cloud keys, private keys, tokens of some two
// hundred services) stay.
var excludedRules = []string{"generic-api-key"}

// minScanned is the shortest text worth scanning: no rule of the set
// matches fewer bytes.
const minScanned = 8

// Scanner finds secrets in text with gitleaks' default rules (but
// excludedRules) and replaces
// each with its marker. It is safe for concurrent use.
type Scanner struct {
	det   *detect.Detector
	key   []byte
	cache *lru.Cache[[sha256.Size]byte, scanned]
}

// scanned is what the cache keeps of one text: nothing but the findings
// when it was clean, its redacted form otherwise.
type scanned struct {
	findings []secretscan.Finding
	redacted string
}

var quietOnce sync.Once

// NewScanner compiles gitleaks' default rule set; key makes the markers
// (secretscan.Marker) and should be the same on every replica so a prompt
// redacts to the same bytes wherever it is sent. entries <= 0 takes
// DefaultCacheEntries.
func NewScanner(key []byte, entries int) (*Scanner, error) {
	// gitleaks logs through a package-level logger to stderr, and some of
	// its trace lines quote what matched: silence it so no secret can
	// reach a log through the library.
	quietOnce.Do(func() { logging.Logger = zerolog.Nop() })
	// A private viper instance: the package-level one is not safe to share.
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("read gitleaks rules: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("decode gitleaks rules: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("compile gitleaks rules: %w", err)
	}
	for _, id := range excludedRules {
		delete(cfg.Rules, id)
	}
	cfg.OrderedRules = slices.DeleteFunc(cfg.OrderedRules, func(id string) bool { return slices.Contains(excludedRules, id) })
	if entries <= 0 {
		entries = DefaultCacheEntries
	}
	cache, err := lru.New[[sha256.Size]byte, scanned](entries)
	if err != nil {
		return nil, fmt.Errorf("scan cache: %w", err)
	}
	return &Scanner{det: detect.NewDetector(cfg), key: append([]byte(nil), key...), cache: cache}, nil
}

// Rules is how many rules the set has.
func (s *Scanner) Rules() int { return len(s.det.Config.Rules) }

// Redact returns text with every secret found replaced by its marker, the
// findings, and whether the text was scanned now (false: the answer came
// from the cache, so its findings were reported before).
func (s *Scanner) Redact(text string) (string, []secretscan.Finding, bool) {
	if len(text) < minScanned {
		return text, nil, false
	}
	sum := sha256.Sum256([]byte(text))
	if r, ok := s.cache.Get(sum); ok {
		if len(r.findings) == 0 {
			return text, nil, false
		}
		return r.redacted, r.findings, false
	}
	r := s.scan(text)
	s.cache.Add(sum, r)
	if len(r.findings) == 0 {
		return text, nil, true
	}
	return r.redacted, r.findings, true
}

func (s *Scanner) scan(text string) scanned {
	found := s.det.DetectString(text)
	if len(found) == 0 {
		return scanned{}
	}
	var r scanned
	// Longest secrets first, so a secret inside another's match is
	// replaced as part of the longer one, and the order (hence the bytes)
	// does not depend on the order the rules ran in.
	type hit struct{ rule, secret string }
	hits := make([]hit, 0, len(found))
	for _, f := range found {
		if f.Secret == "" {
			continue
		}
		hits = append(hits, hit{f.RuleID, f.Secret})
		r.findings = append(r.findings, secretscan.Finding{RuleID: f.RuleID, Marker: secretscan.Marker(s.key, f.RuleID, f.Secret)})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if len(a.secret) != len(b.secret) {
			return len(b.secret) - len(a.secret)
		}
		return strings.Compare(a.secret+"\x00"+a.rule, b.secret+"\x00"+b.rule)
	})
	out := text
	for _, h := range hits {
		out = strings.ReplaceAll(out, h.secret, secretscan.Marker(s.key, h.rule, h.secret))
	}
	r.redacted = out
	return r
}
