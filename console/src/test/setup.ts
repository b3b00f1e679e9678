import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { stopServing } from "./transport";

// api.ts builds its transport with connect-web's createConnectTransport at
// import: hand it the in-memory one instead.
vi.mock("@connectrpc/connect-web", async () => {
  const { fakeTransport } = await import("./transport");
  return { createConnectTransport: () => fakeTransport };
});

// The machine running the tests may be busy (CI shares 2 cores): give
// findBy/waitFor 3 s rather than 1 s before they give up.
configure({ asyncUtilTimeout: 3000 });

// React reports invalid markup, missing keys and updates outside act() on
// console.error: a page that makes it say anything fails its test.
let consoleError: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  consoleError = vi.spyOn(console, "error");
});

afterEach(() => {
  cleanup();
  expect(consoleError, "console.error during the test").not.toHaveBeenCalled();
  stopServing();
  window.history.replaceState(null, "", "/");
});
