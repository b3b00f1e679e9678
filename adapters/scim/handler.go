package scim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	elimity "github.com/elimity-com/scim"
	scimerrors "github.com/elimity-com/scim/errors"
	"github.com/elimity-com/scim/optional"
	"github.com/elimity-com/scim/schema"
	filter "github.com/scim2/filter-parser/v2"

	"keygate/ports"
)

// handler binds one resource type to the use case.
type handler struct {
	kind string
	p    Provisioning
	user schema.Schema
}

var _ elimity.ResourceHandler = (*handler)(nil)

// attributes are a resource's attributes as the protocol sees them.
type attributes = map[string]any

// nameAttr is the attribute that names an entry of kind.
func nameAttr(kind string) string {
	if kind == ports.DirectoryUser {
		return "userName"
	}
	return "displayName"
}

// lookup returns the value of key in m, whatever the case of its name.
func lookup(m attributes, key string) (string, any, bool) {
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return k, v, true
		}
	}
	return "", nil, false
}

// set stores v under key in m, replacing the key in any case.
func set(m attributes, key string, v any) {
	if k, _, ok := lookup(m, key); ok {
		delete(m, k)
	}
	m[key] = v
}

func remove(m attributes, key string) {
	if k, _, ok := lookup(m, key); ok {
		delete(m, k)
	}
}

// boolOf reads a boolean as identity providers send it: true, or "True"
// (Entra ID).
func boolOf(v any) (bool, bool) {
	switch b := v.(type) {
	case bool:
		return b, true
	case string:
		parsed, err := strconv.ParseBool(strings.TrimSpace(b))
		return parsed, err == nil
	}
	return false, false
}

// memberIDs reads the value of each member of a members attribute.
func memberIDs(v any) []string {
	list, _ := v.([]any)
	var ids []string
	for _, m := range list {
		obj, ok := m.(map[string]any)
		if !ok {
			continue
		}
		if _, id, ok := lookup(obj, "value"); ok {
			if s, ok := id.(string); ok && s != "" && !slices.Contains(ids, s) {
				ids = append(ids, s)
			}
		}
	}
	return ids
}

// toEntry turns a resource's attributes into an entry of h's kind.
func (h *handler) toEntry(id string, attrs attributes) (ports.DirectoryEntry, error) {
	attrs = clone(attrs)
	e := ports.DirectoryEntry{Kind: h.kind, ID: id, Active: true}
	_, name, _ := lookup(attrs, nameAttr(h.kind))
	e.Name, _ = name.(string)
	e.Name = strings.TrimSpace(e.Name)
	if e.Name == "" {
		return e, scimerrors.ScimErrorBadRequest(nameAttr(h.kind) + " is required")
	}
	if _, ext, ok := lookup(attrs, "externalId"); ok {
		e.ExternalID, _ = ext.(string)
	}
	if h.kind == ports.DirectoryUser {
		if _, v, ok := lookup(attrs, "active"); ok {
			active, valid := boolOf(v)
			if !valid {
				return e, scimerrors.ScimErrorBadRequest("active is true or false")
			}
			e.Active = active
		}
	} else if _, v, ok := lookup(attrs, "members"); ok {
		e.Members = memberIDs(v)
	}
	// A password is never kept: Keygate signs users in through their
	// identity provider.
	for _, k := range []string{"id", "meta", "schemas", "externalId", "active", "members", "password", "groups", nameAttr(h.kind)} {
		remove(attrs, k)
	}
	raw, err := json.Marshal(attrs)
	if err != nil {
		return e, err
	}
	e.Attributes = raw
	return e, nil
}

// toAttributes turns an entry into its resource's attributes (without
// id, externalId and meta, which the resource carries apart).
func (h *handler) toAttributes(e ports.DirectoryEntry) attributes {
	attrs := attributes{}
	_ = json.Unmarshal(e.Attributes, &attrs)
	attrs[nameAttr(h.kind)] = e.Name
	if h.kind == ports.DirectoryUser {
		attrs["active"] = e.Active
	} else {
		members := make([]any, 0, len(e.Members))
		for _, id := range e.Members {
			members = append(members, map[string]any{"value": id, "$ref": "Users/" + id})
		}
		attrs["members"] = members
	}
	return attrs
}

func (h *handler) resource(e ports.DirectoryEntry) elimity.Resource {
	created, updated := e.Created, e.Updated
	r := elimity.Resource{ID: e.ID, Attributes: h.toAttributes(e),
		Meta: elimity.Meta{Created: &created, LastModified: &updated, Version: fmt.Sprintf(`W/"%d"`, updated.UnixNano())}}
	if e.ExternalID != "" {
		r.ExternalID = optional.NewString(e.ExternalID)
	}
	return r
}

// Create implements elimity.ResourceHandler.
func (h *handler) Create(r *http.Request, attrs elimity.ResourceAttributes) (elimity.Resource, error) {
	e, err := h.toEntry("", attrs)
	if err != nil {
		return elimity.Resource{}, err
	}
	if err := h.membersExist(r, e); err != nil {
		return elimity.Resource{}, err
	}
	e, err = h.p.Create(r.Context(), e)
	if err != nil {
		return elimity.Resource{}, storeError(err, "")
	}
	return h.resource(e), nil
}

// Get implements elimity.ResourceHandler.
func (h *handler) Get(r *http.Request, id string) (elimity.Resource, error) {
	e, err := h.p.Entry(r.Context(), h.kind, id)
	if err != nil {
		return elimity.Resource{}, storeError(err, id)
	}
	return h.resource(e), nil
}

// GetAll implements elimity.ResourceHandler: the kind's entries that pass
// the filter, paged by startIndex and count.
func (h *handler) GetAll(r *http.Request, params elimity.ListRequestParams) (elimity.Page, error) {
	list, err := h.p.Entries(r.Context(), h.kind)
	if err != nil {
		return elimity.Page{}, storeError(err, "")
	}
	matched := []elimity.Resource{}
	for _, e := range list {
		res := h.resource(e)
		if params.FilterValidator != nil {
			view := clone(res.Attributes)
			view["id"] = e.ID
			if e.ExternalID != "" {
				view["externalId"] = e.ExternalID
			}
			if params.FilterValidator.PassesFilter(view) != nil {
				continue
			}
		}
		matched = append(matched, res)
	}
	page := elimity.Page{TotalResults: len(matched), Resources: []elimity.Resource{}}
	start := max(params.StartIndex, 1) - 1
	count := min(max(params.Count, 0), pageSize)
	if start < len(matched) {
		page.Resources = matched[start:min(start+count, len(matched))]
	}
	return page, nil
}

// Replace implements elimity.ResourceHandler.
func (h *handler) Replace(r *http.Request, id string, attrs elimity.ResourceAttributes) (elimity.Resource, error) {
	e, err := h.toEntry(id, attrs)
	if err != nil {
		return elimity.Resource{}, err
	}
	if err := h.membersExist(r, e); err != nil {
		return elimity.Resource{}, err
	}
	e, err = h.p.Replace(r.Context(), e)
	if err != nil {
		return elimity.Resource{}, storeError(err, id)
	}
	return h.resource(e), nil
}

// Delete implements elimity.ResourceHandler.
func (h *handler) Delete(r *http.Request, id string) error {
	return storeError(h.p.Delete(r.Context(), h.kind, id), id)
}

// Patch implements elimity.ResourceHandler: the operations are applied in
// order to the resource's attributes, then the result replaces it.
func (h *handler) Patch(r *http.Request, id string, ops []elimity.PatchOperation) (elimity.Resource, error) {
	e, err := h.p.Entry(r.Context(), h.kind, id)
	if err != nil {
		return elimity.Resource{}, storeError(err, id)
	}
	attrs := h.toAttributes(e)
	if e.ExternalID != "" {
		attrs["externalId"] = e.ExternalID
	}
	for _, op := range ops {
		if err := apply(attrs, op); err != nil {
			return elimity.Resource{}, err
		}
	}
	next, err := h.toEntry(id, attrs)
	if err != nil {
		return elimity.Resource{}, err
	}
	if err := h.membersExist(r, next); err != nil {
		return elimity.Resource{}, err
	}
	next, err = h.p.Replace(r.Context(), next)
	if err != nil {
		return elimity.Resource{}, storeError(err, id)
	}
	return h.resource(next), nil
}

// membersExist refuses a group naming a member that is not a provisioned
// user: Keygate's groups hold its users only.
func (h *handler) membersExist(r *http.Request, e ports.DirectoryEntry) error {
	for _, id := range e.Members {
		if _, err := h.p.Entry(r.Context(), ports.DirectoryUser, id); err != nil {
			if err := storeError(err, id); err != nil {
				return scimerrors.ScimErrorBadRequest("member " + id + " is not a provisioned user")
			}
		}
	}
	return nil
}

func clone(m attributes) attributes {
	out := make(attributes, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// apply applies one PATCH operation to attrs.
func apply(attrs attributes, op elimity.PatchOperation) error {
	if op.Path == nil {
		values, ok := op.Value.(map[string]any)
		if !ok {
			return scimerrors.ScimErrorInvalidValue
		}
		for k, v := range values {
			// Entra ID sends sub-attributes as dotted keys
			// ("name.givenName") in a path-less value map.
			if parent, sub, dotted := strings.Cut(k, "."); dotted && !strings.Contains(k, ":") {
				setSub(attrs, parent, sub, v)
				continue
			}
			if op.Op == elimity.PatchOperationAdd && strings.EqualFold(k, "members") {
				addMembers(attrs, v)
				continue
			}
			set(attrs, k, v)
		}
		return nil
	}
	name := op.Path.AttributePath.AttributeName
	if uri := op.Path.AttributePath.URI(); uri != "" {
		name = uri + ":" + name
	}
	sub := op.Path.AttributePath.SubAttributeName()
	if op.Path.ValueExpression != nil {
		return applyFiltered(attrs, name, op)
	}
	switch op.Op {
	case elimity.PatchOperationRemove:
		if sub != "" {
			if _, parent, ok := lookup(attrs, name); ok {
				if obj, ok := parent.(map[string]any); ok {
					remove(obj, sub)
				}
			}
			return nil
		}
		if strings.EqualFold(name, "members") && op.Value != nil {
			// Entra ID removes members by value, without a filter.
			drop := memberIDs(op.Value)
			_, cur, _ := lookup(attrs, "members")
			set(attrs, "members", keepMembers(cur, func(id string) bool { return !slices.Contains(drop, id) }))
			return nil
		}
		remove(attrs, name)
	case elimity.PatchOperationAdd, elimity.PatchOperationReplace:
		switch {
		case sub != "":
			setSub(attrs, name, sub, op.Value)
		case op.Op == elimity.PatchOperationAdd && strings.EqualFold(name, "members"):
			addMembers(attrs, op.Value)
		default:
			set(attrs, name, op.Value)
		}
	}
	return nil
}

func setSub(attrs attributes, parent, sub string, v any) {
	_, cur, _ := lookup(attrs, parent)
	obj, ok := cur.(map[string]any)
	if !ok {
		obj = map[string]any{}
	}
	set(obj, sub, v)
	set(attrs, parent, obj)
}

// addMembers appends the members in v that attrs does not hold yet.
func addMembers(attrs attributes, v any) {
	_, cur, _ := lookup(attrs, "members")
	list, _ := cur.([]any)
	have := memberIDs(list)
	adding, ok := v.([]any)
	if !ok {
		adding = []any{v}
	}
	for _, m := range adding {
		ids := memberIDs([]any{m})
		if len(ids) == 1 && !slices.Contains(have, ids[0]) {
			list = append(list, m)
			have = append(have, ids[0])
		}
	}
	set(attrs, "members", list)
}

// keepMembers returns the members of cur whose value keep accepts.
func keepMembers(cur any, keep func(id string) bool) []any {
	list, _ := cur.([]any)
	out := []any{}
	for _, m := range list {
		ids := memberIDs([]any{m})
		if len(ids) == 1 && keep(ids[0]) {
			out = append(out, m)
		}
	}
	return out
}

// applyFiltered applies an operation whose path selects elements of a
// multi-valued attribute (members[value eq "…"], emails[type eq
// "work"].value).
func applyFiltered(attrs attributes, name string, op elimity.PatchOperation) error {
	_, cur, _ := lookup(attrs, name)
	list, _ := cur.([]any)
	sub := ""
	if op.Path.SubAttribute != nil {
		sub = *op.Path.SubAttribute
	}
	var out []any
	for _, el := range list {
		obj, ok := el.(map[string]any)
		if !ok || !matches(obj, op.Path.ValueExpression) {
			out = append(out, el)
			continue
		}
		switch {
		case op.Op == elimity.PatchOperationRemove && sub == "":
			continue
		case op.Op == elimity.PatchOperationRemove:
			obj = clone(obj)
			remove(obj, sub)
		case sub != "":
			obj = clone(obj)
			set(obj, sub, op.Value)
		default:
			if v, ok := op.Value.(map[string]any); ok {
				obj = clone(obj)
				for k, x := range v {
					set(obj, k, x)
				}
			}
		}
		out = append(out, obj)
	}
	if out == nil {
		out = []any{}
	}
	set(attrs, name, out)
	return nil
}

// matches evaluates the equality filters identity providers put in a
// PATCH path (and, or, not over "attr eq value"); any other comparison
// matches nothing.
func matches(obj map[string]any, e filter.Expression) bool {
	switch x := e.(type) {
	case *filter.AttributeExpression:
		_, v, ok := lookup(obj, x.AttributePath.AttributeName)
		if !ok || x.Operator != filter.EQ {
			return x.Operator == filter.PR && ok
		}
		return strings.EqualFold(fmt.Sprint(v), fmt.Sprint(x.CompareValue))
	case *filter.LogicalExpression:
		if x.Operator == filter.AND {
			return matches(obj, x.Left) && matches(obj, x.Right)
		}
		return matches(obj, x.Left) || matches(obj, x.Right)
	case *filter.NotExpression:
		return !matches(obj, x.Expression)
	}
	return false
}
