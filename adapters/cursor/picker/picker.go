package picker

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"keygate/adapters/provider"
	"keygate/domain/llm"
	"keygate/domain/modelfamily"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/ports"
)

// The parameter ids Keygate advertises and reads back.
const (
	ParamReasoning = "reasoning"
	ParamFast      = "fast"
	ParamContext   = "context"
)

// ProviderDefault is the reasoning value that leaves the effort to the
// provider (the request carries none).
const ProviderDefault = "default"

// baseEfforts are the levels every reasoning API accepts.
var baseEfforts = []string{"low", "medium", "high"}

// vocabulary orders effort levels from least to most.
var vocabulary = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// Options are the picker parameters one model offers.
type Options struct {
	// Kind is the model's provider protocol.
	Kind llm.ProviderKind
	// Efforts are the reasoning effort levels offered, least first; empty
	// offers no reasoning parameter. DefaultEffort is the configured
	// effort, or ProviderDefault.
	Efforts       []string
	DefaultEffort string
	// Fast offers the vendor's faster, pricier processing.
	Fast bool
	// Window is the context window to compact at by default (0: unknown,
	// no automatic compaction); LongWindow a larger one the user may
	// choose (0: none).
	Window, LongWindow int64
}

// For works out what a configured model offers.
func For(cfg ports.ModelConfig) Options {
	o := Options{Kind: cfg.ProviderKind, DefaultEffort: cfg.ReasoningEffort, Window: cfg.ContextWindowTokens}
	fam, known := modelfamily.Lookup(cfg.ModelID)
	vendor, vendorHost := vendorOf(cfg.ProviderKind)
	vendorAPI := known && vendor == fam.Vendor
	switch {
	case known && len(fam.Efforts) > 0 && (vendorAPI || fam.Vendor == ""):
		o.Efforts = slices.Clone(fam.Efforts)
	case known && len(fam.Efforts) > 0:
		// The family through another vendor's API (a gateway): the levels
		// every reasoning API accepts.
		o.Efforts = slices.Clone(baseEfforts)
	case cfg.ReasoningEffort != "":
		o.Efforts = slices.Clone(baseEfforts)
	}
	if cfg.ReasoningEffort != "" && !slices.Contains(o.Efforts, cfg.ReasoningEffort) {
		o.Efforts = append(o.Efforts, cfg.ReasoningEffort)
		slices.SortStableFunc(o.Efforts, func(a, b string) int { return slices.Index(vocabulary, a) - slices.Index(vocabulary, b) })
	}
	if o.DefaultEffort == "" {
		o.DefaultEffort = ProviderDefault
	}
	o.Fast = known && fam.Fast && vendorAPI && ownAPI(vendorHost, cfg.BaseURL)
	if known {
		if o.Window <= 0 {
			o.Window = fam.Window
		}
		if fam.LongWindow > o.Window {
			o.LongWindow = fam.LongWindow
		}
	}
	return o
}

// vendorOf is the vendor whose API a protocol speaks and that API's host,
// as the protocol declares them; empty for an unknown kind.
func vendorOf(k llm.ProviderKind) (vendor, host string) {
	p, err := provider.Builtin().Lookup(k)
	if err != nil {
		return "", ""
	}
	return p.Vendor, p.VendorHost
}

// ownAPI reports whether base is the vendor's own API at vendorHost, the
// only place its fast tier is documented (a gateway may refuse or ignore
// the field).
func ownAPI(vendorHost, base string) bool {
	u, err := url.Parse(base)
	return err == nil && vendorHost != "" && strings.EqualFold(u.Hostname(), vendorHost)
}

// Choice is what the client chose, applied to the model's settings.
type Choice struct {
	// Effort is the reasoning effort to send ("" for the provider's
	// default).
	Effort string
	// Fast asks for the fast tier (llm.Request.ServiceTier
	// llm.ServiceTierFast).
	Fast bool
	// Window is the window to compact at (0: none).
	Window int64
}

// Choose reads the client's values for a model offering o: an unknown
// parameter or a value o does not offer keeps the default, so a stale
// picker can never send an unsupported value to the provider. Max mode
// without an explicit context choice picks the long window.
func (o Options) Choose(rm *agentv1.RequestedModel) Choice {
	c := Choice{Effort: o.DefaultEffort, Window: o.Window}
	contextChosen := false
	for _, p := range rm.GetParameters() {
		v := strings.ToLower(strings.TrimSpace(p.GetValue()))
		switch p.GetId() {
		case ParamReasoning:
			if v == ProviderDefault || slices.Contains(o.Efforts, v) {
				c.Effort = v
			}
		case ParamFast:
			c.Fast = o.Fast && v == "true"
		case ParamContext:
			if n := ParseTokens(v); n > 0 && (n == o.Window || n == o.LongWindow) {
				c.Window, contextChosen = n, true
			}
		}
	}
	if rm.GetMaxMode() && !contextChosen && o.LongWindow > 0 {
		c.Window = o.LongWindow
	}
	if c.Effort == ProviderDefault {
		c.Effort = ""
	}
	return c
}

func (o Options) vendor() string {
	v, _ := vendorOf(o.Kind)
	return v
}

// Reasoning is the request's reasoning settings for effort: none asks an
// OpenAI model not to reason (its own effort level) and any other
// protocol for no thinking at all.
func (o Options) Reasoning(effort string) llm.Reasoning {
	switch {
	case effort == "":
		return llm.Reasoning{}
	case effort == "none" && o.vendor() == modelfamily.VendorOpenAI:
		return llm.Reasoning{Effort: "none"}
	case effort == "none":
		return llm.Reasoning{}
	}
	return llm.Reasoning{Enabled: true, Effort: effort}
}

// Definitions are the model's parameter definitions for AvailableModels,
// in the order the picker shows them; nil when it offers none.
func (o Options) Definitions() []*aiserverv1.ModelParameterDefinition {
	var defs []*aiserverv1.ModelParameterDefinition
	if len(o.Efforts) > 0 {
		values := []*aiserverv1.ModelParameterDefinition_EnumParameterDefinition_EnumParameterValue{}
		if o.DefaultEffort == ProviderDefault {
			values = append(values, &aiserverv1.ModelParameterDefinition_EnumParameterDefinition_EnumParameterValue{
				Value: ProviderDefault, DisplayName: proto.String("Default"), MarkdownTooltip: proto.String("The provider's default effort.")})
		}
		for _, e := range o.Efforts {
			values = append(values, &aiserverv1.ModelParameterDefinition_EnumParameterDefinition_EnumParameterValue{
				Value: e, DisplayName: proto.String(title(e)), IncreasesModelCost: proto.Bool(slices.Index(vocabulary, e) > slices.Index(vocabulary, "medium"))})
		}
		defs = append(defs, &aiserverv1.ModelParameterDefinition{
			Id: ParamReasoning, Name: "Reasoning", MarkdownTooltip: proto.String("How much the model thinks before it answers."),
			IsCycleableByHotkey: proto.Bool(true),
			ParameterType:       &aiserverv1.ModelParameterDefinition_ModelParameterType{EnumParameter: &aiserverv1.ModelParameterDefinition_EnumParameterDefinition{Values: values}},
		})
	}
	if o.Fast {
		defs = append(defs, &aiserverv1.ModelParameterDefinition{
			Id: ParamFast, Name: "Fast", MarkdownTooltip: proto.String("The provider's faster processing, at a higher price."),
			ParameterType: &aiserverv1.ModelParameterDefinition_ModelParameterType{BooleanParameter: &aiserverv1.ModelParameterDefinition_BooleanParameterDefinition{
				Values: []*aiserverv1.ModelParameterDefinition_BooleanParameterDefinition_BooleanParameterValue{
					{Value: "false", DisplayName: proto.String("Standard")},
					{Value: "true", DisplayName: proto.String("Fast"), IncreasesModelCost: proto.Bool(true)},
				}}},
		})
	}
	if o.LongWindow > 0 {
		defs = append(defs, &aiserverv1.ModelParameterDefinition{
			Id: ParamContext, Name: "Context", MarkdownTooltip: proto.String("How much of the conversation the model keeps before Keygate summarises it."),
			ParameterType: &aiserverv1.ModelParameterDefinition_ModelParameterType{EnumParameter: &aiserverv1.ModelParameterDefinition_EnumParameterDefinition{
				Values: []*aiserverv1.ModelParameterDefinition_EnumParameterDefinition_EnumParameterValue{
					{Value: FormatTokens(o.Window), DisplayName: proto.String(strings.ToUpper(FormatTokens(o.Window)))},
					{Value: FormatTokens(o.LongWindow), DisplayName: proto.String(strings.ToUpper(FormatTokens(o.LongWindow))), IncreasesModelCost: proto.Bool(true)},
				}}},
		})
	}
	return defs
}

// Variants are the model's ready-made combinations, for clients that list
// them as separate picker entries: one per effort level at the standard
// tier and default context, the fast tier at the default effort, and the
// long context as the Max mode variant. Each carries a value for every
// parameter.
func (o Options) Variants(name string) []*aiserverv1.AvailableModelsResponse_ModelVariantConfig {
	defs := o.Definitions()
	if len(defs) == 0 {
		return nil
	}
	values := func(effort string, fast bool, window int64) []*aiserverv1.RequestedModel_ModelParameterValue {
		var vs []*aiserverv1.RequestedModel_ModelParameterValue
		if len(o.Efforts) > 0 {
			vs = append(vs, &aiserverv1.RequestedModel_ModelParameterValue{Id: ParamReasoning, Value: effort})
		}
		if o.Fast {
			vs = append(vs, &aiserverv1.RequestedModel_ModelParameterValue{Id: ParamFast, Value: strconv.FormatBool(fast)})
		}
		if o.LongWindow > 0 {
			vs = append(vs, &aiserverv1.RequestedModel_ModelParameterValue{Id: ParamContext, Value: FormatTokens(window)})
		}
		return vs
	}
	var out []*aiserverv1.AvailableModelsResponse_ModelVariantConfig
	efforts := o.Efforts
	if o.DefaultEffort == ProviderDefault && len(efforts) > 0 {
		efforts = append([]string{ProviderDefault}, efforts...)
	}
	if len(efforts) == 0 {
		efforts = []string{""}
	}
	for _, e := range efforts {
		display := name
		if e != "" && e != ProviderDefault {
			display = fmt.Sprintf("%s %s", name, title(e))
		}
		out = append(out, &aiserverv1.AvailableModelsResponse_ModelVariantConfig{
			ParameterValues: values(e, false, o.Window), DisplayName: display,
			IsDefaultNonMaxConfig: proto.Bool(e == o.DefaultEffort || (e == "" && o.DefaultEffort == ProviderDefault)),
		})
	}
	if o.Fast {
		out = append(out, &aiserverv1.AvailableModelsResponse_ModelVariantConfig{
			ParameterValues: values(o.DefaultEffort, true, o.Window), DisplayName: name + " Fast"})
	}
	if o.LongWindow > 0 {
		out = append(out, &aiserverv1.AvailableModelsResponse_ModelVariantConfig{
			ParameterValues: values(o.DefaultEffort, false, o.LongWindow), DisplayName: name + " " + strings.ToUpper(FormatTokens(o.LongWindow)),
			IsMaxMode: true, IsDefaultMaxConfig: proto.Bool(true)})
	}
	return out
}

func title(s string) string {
	if s == "xhigh" {
		return "Extra high"
	}
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// FormatTokens writes a window as the picker shows it: "272k", "1m",
// "1.05m"; other sizes as plain numbers.
func FormatTokens(n int64) string {
	switch {
	case n >= 1_000_000 && n%10_000 == 0:
		return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(float64(n)/1e6, 'f', 2, 64), "0"), ".") + "m"
	case n >= 1000 && n%1000 == 0:
		return strconv.FormatInt(n/1000, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// ParseTokens reads "272k", "1m", "1.05m" or a plain number; 0 when
// unreadable.
func ParseTokens(v string) int64 {
	v = strings.ToLower(strings.TrimSpace(v))
	mult := 1.0
	switch {
	case strings.HasSuffix(v, "k"):
		mult, v = 1e3, strings.TrimSuffix(v, "k")
	case strings.HasSuffix(v, "m"):
		mult, v = 1e6, strings.TrimSuffix(v, "m")
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f > 1e9 {
		return 0
	}
	return int64(f*mult + 0.5)
}
