package control

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"keygate/ports"
)

// A provider's custom headers are sealed like its keys, and bound like
// them to the provider's origin: they often carry a credential of their
// own (CF-Access-Client-Secret, an organisation token). Their values never
// leave through the API, to administrators either: a view shows each
// header's name and a hint (MaskKey). A write names every header to send;
// an empty value keeps the stored one, which is refused when the provider
// would then send it to another origin than the one it was saved for.
//
// Sealed plaintext: boundHeadersPrefix, the origin, a newline, the headers
// as a JSON object. Headers an earlier Keygate stored in clear
// (Provider.ClearHeaders) are taken as bound to the provider's origin, and
// [KeyBinding.Bind] seals them at start.
const boundHeadersPrefix = "keygate-bound-headers-v1\n"

// HeaderView is a custom header as the console may see it: its name and a
// masked hint of its value, never the value.
type HeaderView struct {
	Name string
	Hint string
}

// storedHeaders are a provider's opened headers and the origin they may be
// sent to.
type storedHeaders struct {
	values map[string]string
	origin string
	// legacy: stored in clear; origin is the provider's.
	legacy bool
}

// sealHeaders seals h bound to origin; nil for no headers.
func (s sealing) sealHeaders(h map[string]string, origin string) ([]byte, error) {
	if len(h) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(h)
	if err != nil {
		return nil, invalid("custom_headers", err.Error())
	}
	sealed, err := s.secrets.Seal(append([]byte(boundHeadersPrefix+origin+"\n"), raw...))
	clear(raw)
	if err != nil {
		return nil, fmt.Errorf("seal custom headers: %w", err)
	}
	return sealed, nil
}

// openHeaders opens the headers of p; a provider without any has none,
// bound to nothing.
func (s sealing) openHeaders(p ports.Provider) (storedHeaders, error) {
	if len(p.SealedHeaders) == 0 {
		if len(p.ClearHeaders) == 0 {
			return storedHeaders{}, nil
		}
		var h map[string]string
		if err := json.Unmarshal(p.ClearHeaders, &h); err != nil {
			return storedHeaders{}, fmt.Errorf("custom headers of provider %s: %w", p.ID, err)
		}
		origin, err := s.providerOrigin(p)
		if err != nil {
			return storedHeaders{}, err
		}
		return storedHeaders{values: h, origin: origin, legacy: true}, nil
	}
	plain, err := s.secrets.Open(p.SealedHeaders)
	if err != nil {
		return storedHeaders{}, fmt.Errorf("open custom headers of provider %s: %w", p.ID, err)
	}
	defer clear(plain)
	rest, ok := strings.CutPrefix(string(plain), boundHeadersPrefix)
	origin, doc, cut := strings.Cut(rest, "\n")
	var h map[string]string
	if !ok || !cut || json.Unmarshal([]byte(doc), &h) != nil {
		return storedHeaders{}, fmt.Errorf("open custom headers of provider %s: %w", p.ID, ports.ErrUnsealable)
	}
	return storedHeaders{values: h, origin: origin}, nil
}

// setHeaders seals the headers a write names onto p, which goes to origin
// from now on; old is p as stored before the write (see resolveHeaders).
func (s sealing) setHeaders(p *ports.Provider, old ports.Provider, want map[string]string, origin, field string) error {
	out, err := s.resolveHeaders(old, want, origin, field)
	if err != nil {
		return err
	}
	sealed, err := s.sealHeaders(out, origin)
	clear(out)
	if err != nil {
		return err
	}
	p.SealedHeaders, p.ClearHeaders = sealed, nil
	return nil
}

// resolveHeaders returns the headers a write of want to origin sends: an
// empty value is the value stored in old under that name (names ignore
// case), which must have been saved for origin: a header is never carried
// to another origin, like a key. field names the request field in errors.
func (s sealing) resolveHeaders(old ports.Provider, want map[string]string, origin, field string) (map[string]string, error) {
	stored, err := s.openHeaders(old)
	if err != nil && needsStored(want) {
		return nil, invalid(field, "the stored header values cannot be decrypted: enter every value again")
	}
	out := make(map[string]string, len(want))
	for name, value := range want {
		if value != "" {
			out[name] = value
			continue
		}
		kept, ok := lookupHeader(stored.values, name)
		switch {
		case !ok:
			return nil, invalid(field, fmt.Sprintf("enter the value of header %s: it is stored encrypted and never shown again", name))
		case stored.origin != origin:
			return nil, invalid(field, fmt.Sprintf("enter the value of header %s again: it was saved for %s and is never sent to %s", name, stored.origin, origin))
		}
		out[name] = kept
	}
	return out, nil
}

// needsStored reports whether a write keeps any stored value.
func needsStored(want map[string]string) bool {
	return slices.Contains(slices.Collect(maps.Values(want)), "")
}

// lookupHeader finds name in h ignoring case, as HTTP does.
func lookupHeader(h map[string]string, name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// headerViews are the names and hints of p's headers, sorted by name;
// none when they cannot be opened (a call then names the problem).
func (s sealing) headerViews(p ports.Provider) []HeaderView {
	stored, err := s.openHeaders(p)
	if err != nil {
		return nil
	}
	out := make([]HeaderView, 0, len(stored.values))
	for _, name := range slices.Sorted(maps.Keys(stored.values)) {
		out = append(out, HeaderView{Name: name, Hint: MaskKey(stored.values[name])})
	}
	return out
}

// headerNames maps each header name of views to "": the form a write
// takes to keep every stored value.
func headerNames(views []HeaderView) map[string]string {
	if len(views) == 0 {
		return nil
	}
	out := make(map[string]string, len(views))
	for _, v := range views {
		out[v.Name] = ""
	}
	return out
}

// HeaderOriginError means stored headers would be sent to another origin than
// the one they were saved for (a row changed behind Keygate's back).
type HeaderOriginError struct {
	ModelID  string
	SavedFor string
	SendTo   string
}

// Error names both origins and what an administrator must do.
func (e *HeaderOriginError) Error() string {
	return fmt.Sprintf("the custom headers of model %s were saved for %s and would be sent to %s; an administrator must enter them again",
		e.ModelID, e.SavedFor, e.SendTo)
}

// sameHeaders reports whether a write of want keeps p's headers as they
// are: the same names, each value empty (kept) or the stored one.
func (s sealing) sameHeaders(p ports.Provider, want map[string]string) bool {
	stored, err := s.openHeaders(p)
	if err != nil || len(stored.values) != len(want) {
		return false
	}
	for name, value := range want {
		kept, ok := lookupHeader(stored.values, name)
		if !ok || (value != "" && value != kept) {
			return false
		}
	}
	return true
}
