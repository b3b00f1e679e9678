import { describe, expect, it } from "vitest";
import { auditEntries, auditJSON, createToken, listTokens, me } from "./account";
import { serveJSON } from "./test/http";

// The account routes answer protojson of proto/keygate/account/v1 (the Go
// side's specs in adapters/auth pin that JSON); these read it back.
describe("account client", () => {
  it("reads the routes' JSON into the generated messages", async () => {
    serveJSON({
      "GET /auth/me": () => ({ body: { userId: "ada", name: "Ada", role: "admin", mode: "oidc" } }),
      "GET /auth/tokens": () => ({ body: { tokens: [{ id: "tok_1", name: "laptop", hint: "kg_ab12…", ownerId: "ada", createdAt: "2026-11-30T10:00:00Z", expiresAt: "2027-02-28T10:00:00Z" }] } }),
      "GET /auth/audit": () => ({ body: { entries: [{ seq: 7, at: "2026-11-30T10:00:00Z", actorId: "ada", role: "admin", action: "token.revoke", target: "tok_1", before: { name: "laptop", n: 2 } }] } }),
    });
    expect(await me()).toMatchObject({ userId: "ada", name: "Ada", role: "admin", mode: "oidc" });
    const [t] = await listTokens(false);
    expect(t).toMatchObject({ id: "tok_1", ownerId: "ada", expiresAt: "2027-02-28T10:00:00Z" });
    expect(t.revokedAt).toBeUndefined();
    const [e] = await auditEntries();
    expect(e.seq).toBe(7);
    expect(auditJSON(e.before)).toEqual({ name: "laptop", n: 2 });
    expect(auditJSON(e.after)).toBeUndefined();
  });

  it("refuses an answer with a field the messages do not declare, saying to reload", async () => {
    serveJSON({ "GET /auth/me": () => ({ body: { userId: "ada", name: "Ada", role: "admin", mode: "oidc", tenant: "x" } }) });
    await expect(me()).rejects.toThrow(/Keygate answered \/auth\/me in a form this console does not know: reload the page/);
  });

  it("sends a creation as {name, ttlDays}, both always present", async () => {
    let sent: unknown;
    serveJSON({ "POST /auth/tokens": (_, body) => {
      sent = JSON.parse(body ?? "null");
      return { status: 201, body: { token: { id: "tok_2", name: "ci" }, secret: "kg_secret" } };
    } });
    const r = await createToken("ci", 0);
    expect(r.secret).toBe("kg_secret");
    expect(r.token?.name).toBe("ci");
    expect(sent).toEqual({ name: "ci", ttlDays: 0 });
  });
});
