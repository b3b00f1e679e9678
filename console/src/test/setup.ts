import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach, vi } from "vitest";
import { stopServing } from "./transport";

// api.ts builds its transport with connect-web's createConnectTransport at
// import: hand it the in-memory one instead.
vi.mock("@connectrpc/connect-web", async () => {
  const { fakeTransport } = await import("./transport");
  return { createConnectTransport: () => fakeTransport };
});

afterEach(() => {
  cleanup();
  stopServing();
  window.history.replaceState(null, "", "/");
});
