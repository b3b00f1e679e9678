package bedrock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
	"keygate/ports"
)

// service is the SigV4 signing name of Bedrock's runtime and control plane.
const service = "bedrock"

// expiryWindow refreshes temporary credentials this long before they
// expire, so that no call is signed with credentials that lapse on the way.
const expiryWindow = 5 * time.Minute

// maxCached bounds the credential cache; past it the cache starts over
// (a deployment has a handful of providers).
const maxCached = 256

// signer signs requests with credentials cached per provider setting.
type signer struct {
	v4    *v4.Signer
	mu    sync.Mutex
	cache map[string]aws.CredentialsProvider
}

func newSigner() *signer {
	return &signer{v4: v4.NewSigner(), cache: map[string]aws.CredentialsProvider{}}
}

// sign is protocol.Protocol.Sign: SigV4 over the final body bytes for the
// provider's region.
func (s *signer) sign(ctx context.Context, req *http.Request, body []byte, c protocol.Credentials) error {
	creds, err := s.retrieve(ctx, c)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	if err := s.v4.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), service, c.Cloud.Region, time.Now()); err != nil {
		return fmt.Errorf("sign request: %w", err)
	}
	return nil
}

// retrieve returns current credentials for c, fetching them when the cached
// ones are missing or about to expire. A failure names the source, never a
// secret.
func (s *signer) retrieve(ctx context.Context, c protocol.Credentials) (aws.Credentials, error) {
	if c.Cloud.Region == "" {
		return aws.Credentials{}, &llm.ProviderError{Class: llm.ErrorBadRequest, Message: "Bedrock: the provider names no AWS region"}
	}
	p, err := s.provider(ctx, c)
	if err != nil {
		return aws.Credentials{}, err
	}
	creds, err := p.Retrieve(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return aws.Credentials{}, fmt.Errorf("retrieve AWS credentials: %w", ctx.Err())
		}
		if refused := failure.Refused("Bedrock credentials", err); refused != nil {
			return aws.Credentials{}, refused
		}
		return aws.Credentials{}, &llm.ProviderError{Class: llm.ErrorAuthorization,
			Message: "Bedrock: no AWS credentials from " + sourceName(c.Cloud.Source) + ": " + failure.Bound(scrub(err.Error(), c.Key)),
			Err:     errors.New("credential retrieval failed")}
	}
	return creds, nil
}

// scrub removes the pool's secret from a message.
func scrub(s, key string) string {
	for _, part := range strings.Split(key, ":") {
		if len(part) >= 8 {
			s = strings.ReplaceAll(s, part, "[redacted]")
		}
	}
	return s
}

func sourceName(s ports.CredentialSource) string {
	if s == ports.CredentialKeys {
		return "the provider's keys"
	}
	return string(s)
}

// provider returns the cached credentials provider of c's settings and key.
func (s *signer) provider(ctx context.Context, c protocol.Credentials) (aws.CredentialsProvider, error) {
	h := sha256.New()
	for _, f := range []string{string(c.Cloud.Source), c.Cloud.Region, c.Cloud.Profile, c.Cloud.RoleARN,
		c.Cloud.WebIdentityTokenFile, c.Key} {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	id := hex.EncodeToString(h.Sum(nil))
	s.mu.Lock()
	p, ok := s.cache[id]
	s.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := newProvider(ctx, c)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.cache[id]; ok {
		return prev, nil
	}
	if len(s.cache) >= maxCached {
		clear(s.cache)
	}
	s.cache[id] = p
	return p, nil
}

// newProvider builds the credentials provider of c's source, every fetch
// through c's clients.
func newProvider(ctx context.Context, c protocol.Credentials) (aws.CredentialsProvider, error) {
	cache := func(p aws.CredentialsProvider) aws.CredentialsProvider {
		return aws.NewCredentialsCache(p, func(o *aws.CredentialsCacheOptions) { o.ExpiryWindow = expiryWindow })
	}
	bad := func(msg string) error {
		return &llm.ProviderError{Class: llm.ErrorBadRequest, Message: "Bedrock: " + msg}
	}
	switch c.Cloud.Source {
	case ports.CredentialKeys:
		parts := strings.SplitN(c.Key, ":", 3)
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			return nil, bad("a key of the pool must be ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]")
		}
		token := ""
		if len(parts) == 3 {
			token = parts[2]
		}
		return credentials.NewStaticCredentialsProvider(parts[0], parts[1], token), nil
	case ports.CredentialInstanceRole:
		if c.Metadata == nil {
			return nil, bad("the instance role needs the metadata service, which this process cannot reach")
		}
		// Enabled explicitly: the administrator chose this source, whatever
		// AWS_EC2_METADATA_DISABLED says for the default chain.
		client := imds.New(imds.Options{HTTPClient: c.Metadata, ClientEnableState: imds.ClientEnabled})
		return cache(ec2rolecreds.New(func(o *ec2rolecreds.Options) { o.Client = client })), nil
	case ports.CredentialWebIdentity:
		cfg, err := loadConfig(ctx, c, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
		if err != nil {
			return nil, err
		}
		stsClient := sts.NewFromConfig(cfg)
		return cache(stscreds.NewWebIdentityRoleProvider(stsClient, c.Cloud.RoleARN,
			stscreds.IdentityTokenFile(c.Cloud.WebIdentityTokenFile),
			func(o *stscreds.WebIdentityRoleOptions) { o.RoleSessionName = "keygate" })), nil
	case ports.CredentialProfile:
		cfg, err := loadConfig(ctx, c, config.WithSharedConfigProfile(c.Cloud.Profile))
		if err != nil {
			return nil, err
		}
		return cfg.Credentials, nil
	case ports.CredentialDefault:
		cfg, err := loadConfig(ctx, c)
		if err != nil {
			return nil, err
		}
		return cfg.Credentials, nil
	}
	return nil, bad("unknown credential source " + string(c.Cloud.Source))
}

// loadConfig is the SDK's configuration for c's region with every fetch
// (STS, SSO, the default chain's container and instance steps) on c.HTTP,
// the outbound policy's client: the default chain cannot reach the metadata
// service; the instance-role source is the way to. The policy's client
// trusts the system's roots, so AWS_CA_BUNDLE cannot apply (the SDK then
// refuses the configuration; use the system trust store or SSL_CERT_FILE).
func loadConfig(ctx context.Context, c protocol.Credentials, more ...func(*config.LoadOptions) error) (aws.Config, error) {
	opts := append([]func(*config.LoadOptions) error{config.WithRegion(c.Cloud.Region)}, more...)
	if c.HTTP != nil {
		opts = append(opts, config.WithHTTPClient(c.HTTP))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, &llm.ProviderError{Class: llm.ErrorBadRequest,
			Message: "Bedrock: AWS configuration for " + sourceName(c.Cloud.Source) + ": " + failure.Bound(err.Error())}
	}
	return cfg, nil
}
