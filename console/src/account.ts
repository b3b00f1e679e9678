// Client for the signed-in user's JSON routes under /auth (who am I,
// personal gateway tokens, audit log). They are plain JSON next to the
// Connect control API because they belong to the sign-in layer, not to a
// control service. Every failure becomes an Error whose message says what
// to do, so ErrorBox can show it as is.

// The routes' messages are proto/keygate/account/v1, generated for the Go
// side and for this client alike: a route's answer is read with fromJson,
// which refuses a field the message does not declare (Keygate serves this
// console, so both come from one build), and a body is written with toJson.
import { create, fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import {
  CreateTokenRequestSchema, CreateTokenResponseSchema, ListAuditEntriesResponseSchema, ListTokensResponseSchema, MeSchema,
} from "./gen/account/v1/account_pb";

export type { AuditEntry, GatewayToken, Me } from "./gen/account/v1/account_pb";

async function call(path: string, init?: RequestInit): Promise<JsonValue | undefined> {
  let r: Response;
  try {
    r = await fetch(path, { ...init, headers: { Accept: "application/json", ...init?.headers } });
  } catch (e) {
    throw new Error(`Keygate is not reachable: check that it is running, then reload. (${String(e)})`, { cause: e });
  }
  if (r.ok) return r.status === 204 ? undefined : ((await r.json()) as JsonValue);
  const text = (await r.text()).trim();
  switch (r.status) {
    case 401:
      throw new Error("You are not signed in (or your session ended): reload the page to sign in again.");
    case 403:
      throw new Error(`${text || "Forbidden"}: ask an administrator of this Keygate.`);
    case 404:
      throw new Error(text && text !== "404 page not found" ? `${text}: reload the list; it may have been removed.`
        : "This Keygate does not offer this page yet: upgrade Keygate.");
    default:
      throw new Error(r.status >= 500 ? `Keygate failed (${r.status} ${text}): try again; if it persists, check Keygate's log.`
        : `${text} (${r.status})`);
  }
}

// read parses a route's answer as the message schema describes.
async function read<D extends DescMessage>(schema: D, path: string, init?: RequestInit): Promise<MessageShape<D>> {
  const json = await call(path, init);
  try {
    return fromJson(schema, json ?? null);
  } catch (e) {
    throw new Error(`Keygate answered ${path} in a form this console does not know: reload the page. (${String(e)})`, { cause: e });
  }
}

export const me = () => read(MeSchema, "/auth/me");

export const listTokens = (all: boolean) =>
  read(ListTokensResponseSchema, all ? "/auth/tokens?all=1" : "/auth/tokens").then((r) => r.tokens);

export const createToken = (name: string, ttlDays: number) =>
  read(CreateTokenResponseSchema, "/auth/tokens", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(toJson(CreateTokenRequestSchema, create(CreateTokenRequestSchema, { name, ttlDays }), { alwaysEmitImplicit: true })),
  });

export const revokeToken = async (id: string) => {
  await call(`/auth/tokens/${encodeURIComponent(id)}`, { method: "DELETE" });
};

export const auditEntries = (before?: number) =>
  read(ListAuditEntriesResponseSchema, `/auth/audit?limit=50${before ? `&before=${before}` : ""}`).then((r) => r.entries);

// auditJSON is an audit entry's before or after as the plain JSON it was
// stored as; undefined when absent.
export const auditJSON = (v: Value | undefined): JsonValue | undefined => (v === undefined ? undefined : toJson(ValueSchema, v));
