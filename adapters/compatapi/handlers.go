package compatapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/wire"
	"keygate/app/gateway"
	"keygate/domain/identity"
	"keygate/domain/llm"
)

// reply re-encodes a call's events in the caller's protocol.
type reply interface {
	ContentType() string
	Start(dst []byte) []byte
	Event(dst []byte, ev llm.Event) []byte
	Finish(dst []byte) []byte
}

func (s *Server) messages(ctx context.Context, w http.ResponseWriter, r *http.Request, d dialect, body []byte) {
	in, err := anthropic.ParseInbound(body, r.Header.Get("anthropic-beta"))
	if err != nil {
		d.writeError(w, http.StatusBadRequest, errInvalid, err.Error())
		return
	}
	id := newID()
	rep := anthropic.NewReply("msg_"+id, in.Model, in.Stream)
	s.relay(ctx, w, d, in.Stream, gateway.Call{Model: in.Model, Request: in.Request, RequestID: id,
		Session: sessionOf(r, ""), Client: clientOf(r)}, rep, func(dst []byte, kind errKind, msg string) []byte {
		typ := map[errKind]string{errRateLimit: "rate_limit_error", errOverloaded: "overloaded_error", errInvalid: "invalid_request_error"}[kind]
		if typ == "" {
			typ = "api_error"
		}
		return rep.Fail(dst, typ, msg)
	})
}

func (s *Server) countTokens(ctx context.Context, w http.ResponseWriter, r *http.Request, d dialect, body []byte) {
	in, err := anthropic.ParseInbound(body, "")
	if err != nil {
		d.writeError(w, http.StatusBadRequest, errInvalid, err.Error())
		return
	}
	if _, err := s.o.Gateway.Resolve(ctx, in.Model); err != nil {
		status, kind, msg := refusal(err)
		d.writeError(w, status, kind, msg)
		return
	}
	in.Request.Native = nil
	var out wire.Writer
	out.BeginObject()
	out.Key("input_tokens")
	out.Int(llm.EstimateRequest(in.Request))
	out.EndObject()
	writeJSON(w, http.StatusOK, out.B)
}

func (s *Server) chat(ctx context.Context, w http.ResponseWriter, r *http.Request, d dialect, body []byte) {
	in, err := openai.ParseChat(body)
	if err != nil {
		d.writeError(w, http.StatusBadRequest, errInvalid, err.Error())
		return
	}
	id := newID()
	rep := openai.NewChatReply("chatcmpl-"+id, in.Model, s.o.Now().Unix(), in.Stream, in.StreamUsage)
	s.relay(ctx, w, d, in.Stream, gateway.Call{Model: in.Model, Request: in.Request, RequestID: id,
		Session: sessionOf(r, in.CacheKey), Client: clientOf(r)}, rep, func(dst []byte, kind errKind, msg string) []byte {
		typ, code := openAIError(kind)
		return rep.Fail(dst, typ, code, msg)
	})
}

func (s *Server) responses(ctx context.Context, w http.ResponseWriter, r *http.Request, d dialect, body []byte) {
	in, err := openai.ParseResponses(body)
	if err != nil {
		d.writeError(w, http.StatusBadRequest, errInvalid, err.Error())
		return
	}
	if len(in.Dropped) > 0 {
		s.o.Log.Debug("hosted tools left out of an api call", zap.Strings("tools", in.Dropped))
	}
	id := newID()
	rep := openai.NewResponsesReply("resp_"+id, in.Model, s.o.Now().Unix(), in.Stream)
	s.relay(ctx, w, d, in.Stream, gateway.Call{Model: in.Model, Request: in.Request, RequestID: id,
		Session: sessionOf(r, in.CacheKey), Client: clientOf(r)}, rep, func(dst []byte, kind errKind, msg string) []byte {
		typ, code := openAIError(kind)
		return rep.Fail(dst, typ, code, msg)
	})
}

// relay makes the call and writes its answer. A failure before the first
// event keeps its own status; once a stream is under way it ends with the
// protocol's in-stream error. A whole (non-streamed) answer is written
// only when complete.
func (s *Server) relay(ctx context.Context, w http.ResponseWriter, d dialect, stream bool, c gateway.Call, rep reply,
	fail func(dst []byte, kind errKind, msg string) []byte) {
	st, _, err := s.o.Gateway.Stream(ctx, c)
	if err != nil {
		status, kind, msg := refusal(err)
		if status >= 500 {
			s.o.Log.Warn("api call failed", zap.String("request_id", c.RequestID), zap.Error(err))
		}
		d.writeError(w, status, kind, msg)
		return
	}
	defer func() { _ = st.Close() }()
	flusher, _ := w.(http.Flusher)
	var buf []byte
	started := false
	for st.Next() {
		ev := st.Event()
		if !stream {
			buf = rep.Event(buf, ev)
			continue
		}
		if !started {
			started = true
			w.Header().Set("Content-Type", rep.ContentType())
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusOK)
			buf = rep.Start(buf[:0])
		}
		buf = rep.Event(buf, ev)
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return // the caller left; closing the stream cancels the call
			}
			buf = buf[:0]
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
	if err := st.Err(); err != nil {
		status, kind, msg := refusal(err)
		if !errors.Is(err, context.Canceled) {
			s.o.Log.Warn("api call ended with an error", zap.String("request_id", c.RequestID), zap.Error(err))
		}
		if !started {
			d.writeError(w, status, kind, msg)
			return
		}
		_, _ = w.Write(fail(nil, kind, msg))
		return
	}
	if !started { // a whole answer, or a stream that had no event yet
		w.Header().Set("Content-Type", rep.ContentType())
		w.WriteHeader(http.StatusOK)
	}
	_, _ = w.Write(rep.Finish(buf[:0]))
}

// models lists what the caller may name: in Anthropic's shape when the
// caller speaks Anthropic (anthropic-version or x-api-key), else OpenAI's.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	var d dialect = chatDialect{}
	anth := r.Header.Get("anthropic-version") != "" || (r.Header.Get("x-api-key") != "" && !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "))
	if anth {
		d = anthropicDialect{}
	}
	who, status, msg := s.authenticate(r)
	if status != 0 {
		kind := errAuth
		if status == http.StatusForbidden {
			kind = errPermission
		}
		d.writeError(w, status, kind, msg)
		return
	}
	models, err := s.o.Gateway.Models(identity.NewContext(r.Context(), who))
	if err != nil {
		s.o.Log.Error("list api models", zap.Error(err))
		d.writeError(w, http.StatusInternalServerError, errServer, "Keygate could not list the models")
		return
	}
	var out wire.Writer
	out.BeginObject()
	if anth {
		out.Key("data")
		out.BeginArray()
		for _, m := range models {
			out.BeginObject()
			out.StringField("type", "model")
			out.StringField("id", m.ID)
			out.StringField("display_name", m.Name)
			out.EndObject()
		}
		out.EndArray()
		out.Key("has_more")
		out.Bool(false)
	} else {
		out.StringField("object", "list")
		out.Key("data")
		out.BeginArray()
		for _, m := range models {
			out.BeginObject()
			out.StringField("id", m.ID)
			out.StringField("object", "model")
			out.Key("created")
			out.Int(m.Created)
			out.StringField("owned_by", m.Provider)
			out.StringField("name", m.Name)
			out.EndObject()
		}
		out.EndArray()
	}
	out.EndObject()
	writeJSON(w, http.StatusOK, out.B)
}
