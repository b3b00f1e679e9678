// Client for the signed-in user's JSON routes under /auth (who am I,
// personal gateway tokens, audit log). They are plain JSON next to the
// Connect control API because they belong to the sign-in layer, not to a
// control service. Every failure becomes an Error whose message says what
// to do, so ErrorBox can show it as is.

export type Me = { userId: string; name: string; role: string; mode: string };

export type GatewayToken = {
  id: string;
  name: string;
  hint: string;
  ownerId: string;
  ownerName?: string;
  createdAt: string;
  expiresAt?: string;
  lastUsedAt?: string;
  revokedAt?: string;
};

export type AuditEntry = {
  seq: number;
  at: string;
  actorId: string;
  actorName?: string;
  role: string;
  action: string;
  target: string;
  before?: unknown;
  after?: unknown;
};

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  let r: Response;
  try {
    r = await fetch(path, { ...init, headers: { Accept: "application/json", ...init?.headers } });
  } catch (e) {
    throw new Error(`Keygate is not reachable: check that it is running, then reload. (${String(e)})`, { cause: e });
  }
  if (r.ok) return (r.status === 204 ? undefined : await r.json()) as T;
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

export const me = () => call<Me>("/auth/me");

export const listTokens = (all: boolean) =>
  call<{ tokens: GatewayToken[] | null }>(all ? "/auth/tokens?all=1" : "/auth/tokens").then((r) => r.tokens ?? []);

export const createToken = (name: string, ttlDays: number) =>
  call<{ token: GatewayToken; secret: string }>("/auth/tokens", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name, ttlDays }),
  });

export const revokeToken = (id: string) => call<void>(`/auth/tokens/${encodeURIComponent(id)}`, { method: "DELETE" });

export const auditEntries = (before?: number) =>
  call<{ entries: AuditEntry[] | null }>(`/auth/audit?limit=50${before ? `&before=${before}` : ""}`).then((r) => r.entries ?? []);
