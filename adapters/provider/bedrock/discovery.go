package bedrock

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrock"
	"github.com/aws/aws-sdk-go-v2/service/bedrock/types"
	"github.com/aws/smithy-go"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
)

// maxPages bounds a listing of inference profiles (1000 per page).
const maxPages = 20

// discover lists the models a Bedrock account can call in its region: the
// foundation models invoked on demand that stream text, and every inference
// profile (cross-region ones such as us.anthropic.claude-… and the
// account's own), through the SDK's Bedrock client on c's clients.
func (s *signer) discover(ctx context.Context, base string, c protocol.Credentials) ([]string, error) {
	if c.Cloud.Region == "" {
		return nil, &llm.ProviderError{Class: llm.ErrorBadRequest, Message: "Bedrock: the provider names no AWS region"}
	}
	p, err := s.provider(ctx, c)
	if err != nil {
		return nil, err
	}
	client := bedrock.New(bedrock.Options{Region: c.Cloud.Region, Credentials: p, HTTPClient: c.HTTP,
		BaseEndpoint: aws.String(controlPlane(base))})
	var ids []string
	fm, err := client.ListFoundationModels(ctx, &bedrock.ListFoundationModelsInput{
		ByInferenceType: types.InferenceTypeOnDemand, ByOutputModality: types.ModelModalityText})
	if err != nil {
		return nil, listError(ctx, err)
	}
	for _, m := range fm.ModelSummaries {
		if m.ModelId != nil && (m.ResponseStreamingSupported == nil || *m.ResponseStreamingSupported) {
			ids = append(ids, *m.ModelId)
		}
	}
	var token *string
	for range maxPages {
		ip, err := client.ListInferenceProfiles(ctx, &bedrock.ListInferenceProfilesInput{NextToken: token, MaxResults: aws.Int32(1000)})
		if err != nil {
			return nil, listError(ctx, err)
		}
		for _, p := range ip.InferenceProfileSummaries {
			if p.InferenceProfileId != nil {
				ids = append(ids, *p.InferenceProfileId)
			}
		}
		if ip.NextToken == nil || *ip.NextToken == "" || (token != nil && *ip.NextToken == *token) {
			break
		}
		token = ip.NextToken
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// controlPlane is the listing endpoint for a runtime base URL: the vendor's
// bedrock-runtime.{region} host becomes bedrock.{region}; any other base (a
// private endpoint, a test fake) serves both.
func controlPlane(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	if h, ok := strings.CutPrefix(u.Host, "bedrock-runtime."); ok {
		u.Host = "bedrock." + h
	}
	return u.String()
}

// listError classifies a failed listing: the outbound policy's refusal, an
// HTTP status, or a transport failure.
func listError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var perr *llm.ProviderError
	if errors.As(err, &perr) {
		return perr
	}
	if refused := failure.Refused("Bedrock models", err); refused != nil {
		return refused
	}
	var api smithy.APIError
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &api) && errors.As(err, &status) {
		return failure.Status("Bedrock models", status.HTTPStatusCode(), []byte(api.ErrorCode()+": "+api.ErrorMessage()))
	}
	return failure.Transient("Bedrock", "models request error", err)
}
