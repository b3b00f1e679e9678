// serveJSON answers the console's plain JSON routes under /auth/ (account.ts
// calls fetch): each route maps "METHOD /path" to a handler of the query
// (and of the request's body, as the string it was sent as);
// any other request answers 404 as Keygate's mux does. vitest.config.ts
// unstubs fetch after each test.
import { vi } from "vitest";

type Handler = (query: URLSearchParams, body?: string) => { status?: number; body?: unknown; text?: string };

export function serveJSON(routes: Record<string, Handler>) {
  const seen: string[] = [];
  vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input, window.location.origin);
    const key = `${init?.method ?? "GET"} ${url.pathname}`;
    seen.push(`${key}${url.search}`);
    const handler = routes[key];
    if (!handler) return Promise.resolve(new Response("404 page not found", { status: 404 }));
    const r = handler(url.searchParams, typeof init?.body === "string" ? init.body : undefined);
    const body = r.text ?? (r.body === undefined ? null : JSON.stringify(r.body));
    return Promise.resolve(new Response(body, { status: r.status ?? 200, headers: { "Content-Type": r.text ? "text/plain" : "application/json" } }));
  });
  return seen;
}
