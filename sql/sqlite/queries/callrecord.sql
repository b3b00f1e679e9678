-- name: UpsertCallRecord :exec
INSERT INTO call_records (call_id, run_id, conversation_id, provider_call_index, provider_kind, request_url,
                          model_id, reasoning_effort, service_tier, message_count, tool_count,
                          response_model, response_id, status, finish, http_status, error_class,
                          error_message, request_started_at, response_headers_at, first_event_at,
                          first_text_at, finished_at, request_bytes, response_bytes, event_count,
                          has_usage, usage_input, usage_cache_read, usage_cache_write, usage_output,
                          usage_reasoning, usage_known, detailed, user_id, route_id, route_target,
                          route_provider, route_key, route_attempt, route_moved, kind, client)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
        ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39, ?40,
        ?41, ?42, ?43)
ON CONFLICT (call_id) DO UPDATE SET
    run_id = excluded.run_id, conversation_id = excluded.conversation_id,
    provider_call_index = excluded.provider_call_index, provider_kind = excluded.provider_kind,
    request_url = excluded.request_url, model_id = excluded.model_id,
    reasoning_effort = excluded.reasoning_effort, service_tier = excluded.service_tier,
    message_count = excluded.message_count, tool_count = excluded.tool_count,
    response_model = excluded.response_model, response_id = excluded.response_id,
    status = excluded.status, finish = excluded.finish, http_status = excluded.http_status,
    error_class = excluded.error_class, error_message = excluded.error_message,
    request_started_at = excluded.request_started_at,
    response_headers_at = excluded.response_headers_at, first_event_at = excluded.first_event_at,
    first_text_at = excluded.first_text_at, finished_at = excluded.finished_at,
    request_bytes = excluded.request_bytes, response_bytes = excluded.response_bytes,
    event_count = excluded.event_count, has_usage = excluded.has_usage,
    usage_input = excluded.usage_input, usage_cache_read = excluded.usage_cache_read,
    usage_cache_write = excluded.usage_cache_write, usage_output = excluded.usage_output,
    usage_reasoning = excluded.usage_reasoning, usage_known = excluded.usage_known,
    detailed = excluded.detailed, user_id = excluded.user_id, route_id = excluded.route_id,
    route_target = excluded.route_target, route_provider = excluded.route_provider,
    route_key = excluded.route_key, route_attempt = excluded.route_attempt, route_moved = excluded.route_moved,
    kind = excluded.kind, client = excluded.client;

-- name: GetCallRecord :one
SELECT * FROM call_records WHERE call_id = ?1;

-- name: InsertCallRequest :exec
INSERT INTO call_requests (call_id, method, url, headers, body) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (call_id) DO UPDATE SET method = excluded.method, url = excluded.url,
    headers = excluded.headers, body = excluded.body;

-- name: GetCallRequest :one
SELECT * FROM call_requests WHERE call_id = ?1;

-- name: InsertCallChunk :exec
INSERT INTO call_chunks (call_id, seq, offset_us, data) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (call_id, seq) DO NOTHING;

-- name: CallChunks :many
SELECT * FROM call_chunks WHERE call_id = ?1 ORDER BY seq;
