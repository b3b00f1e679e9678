import { describe as group, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe } from "./api";

group("describe", () => {
  it("tells what to do when Keygate cannot be reached", () => {
    expect(describe(new ConnectError("fetch failed", Code.Unavailable))).toBe("Keygate is not reachable: check that it is running. (fetch failed)");
    expect(describe(new TypeError("Failed to fetch"))).toBe("Failed to fetch");
  });

  it("passes a provider's unavailability through as Keygate phrased it", () => {
    expect(describe(new ConnectError("the provider answered 503", Code.Unavailable))).toBe("the provider answered 503");
  });

  it("says an older Keygate lacks a service", () => {
    expect(describe(new ConnectError("", Code.Unimplemented))).toMatch(/^This Keygate does not offer this yet/);
  });

  it("shows any other message as the server wrote it", () => {
    expect(describe(new ConnectError("model name taken", Code.AlreadyExists))).toBe("model name taken");
  });
});
