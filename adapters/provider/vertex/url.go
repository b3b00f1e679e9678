package vertex

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Global is the location that serves a model from any region Google
// chooses; its host has no region prefix.
const Global = "global"

// Location is where Vertex AI calls go: the Google Cloud project and the
// location (region, or Global) of the model.
type Location struct {
	Project, Region string
}

// names are what Google allows in project ids and location names; checking
// them keeps a setting from adding path segments or another host.
var (
	projectName  = regexp.MustCompile(`^[a-z][a-z0-9-]{4,28}[a-z0-9]$|^[a-z0-9.:-]{1,63}$`)
	locationName = regexp.MustCompile(`^[a-z]+(-[a-z0-9]+)*$`)
)

// Check reports a missing or malformed project or region.
func (l Location) Check() error {
	switch {
	case l.Project == "":
		return fmt.Errorf("vertex AI needs a Google Cloud project id")
	case !projectName.MatchString(l.Project):
		return fmt.Errorf("vertex AI project %q is not a Google Cloud project id", l.Project)
	case l.Region == "":
		return fmt.Errorf("vertex AI needs a location (a region such as us-east5, or global)")
	case !locationName.MatchString(l.Region):
		return fmt.Errorf("vertex AI location %q is not a region name", l.Region)
	}
	return nil
}

// Host is Google's endpoint of the location: aiplatform.googleapis.com for
// Global, {region}-aiplatform.googleapis.com for a region.
func (l Location) Host() string {
	if l.Region == Global {
		return "aiplatform.googleapis.com"
	}
	return l.Region + "-aiplatform.googleapis.com"
}

// Base is the default base URL of the location, which a model's configured
// base URL replaces (a test's fake, a Private Service Connect endpoint).
func (l Location) Base() string { return "https://" + l.Host() }

// modelPath is the path of a publisher's model under base:
// /v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}.
// A base whose path already names the project's location (…/v1/projects/p/
// locations/r, as a private endpoint is sometimes given) keeps it.
func modelPath(base url.URL, l Location, publisher, model string) url.URL {
	if base.Host == "global-aiplatform.googleapis.com" {
		// A region-templated base ({region}-aiplatform…) for the global
		// location: Google serves it without the prefix.
		base.Host = Location{Region: Global}.Host()
	}
	p := strings.TrimRight(base.Path, "/")
	if !strings.Contains(p, "/projects/") {
		p += "/v1/projects/" + l.Project + "/locations/" + l.Region
	}
	base.Path = p + "/publishers/" + publisher + "/models/" + model
	base.RawPath = ""
	return base
}

// AnthropicURL is the streamRawPredict URL of an Anthropic model
// (claude-sonnet-4-5@20250929) at l under base.
func AnthropicURL(base url.URL, l Location, model string) url.URL {
	u := modelPath(base, l, "anthropic", model)
	u.Path += ":streamRawPredict"
	return u
}

// GeminiURL is the streamGenerateContent URL of a Gemini model at l under
// base, asking for SSE (alt=sse) as the Gemini API's decoder reads it.
func GeminiURL(base url.URL, l Location, model string) url.URL {
	u := modelPath(base, l, "google", strings.TrimPrefix(model, "models/"))
	u.Path += ":streamGenerateContent"
	q := u.RawQuery
	if q != "" {
		q += "&"
	}
	u.RawQuery = q + "alt=sse"
	return u
}

// locationOf reads the project and location a base URL's path names.
func locationOf(base url.URL) Location {
	var l Location
	parts := strings.Split(strings.Trim(base.Path, "/"), "/")
	for i := 0; i+1 < len(parts); i++ {
		switch parts[i] {
		case "projects":
			l.Project = parts[i+1]
		case "locations":
			l.Region = parts[i+1]
		}
	}
	return l
}
