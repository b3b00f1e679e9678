// Vitest runs the component tests (src/**/*.test.{ts,tsx}) in jsdom. It is
// its own file so that vite.config.ts, and so the production bundle, stay
// as they are; the bundle starts at index.html and never reaches a test.
import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts"],
    // One jsdom per worker thread rather than per file: about 11 s instead of
    // 18 s (or 40 s on a loaded machine) for the suite on 2 cores. Files
    // share modules then, so setup.ts resets all they share after each test
    // (the served API, the URL, the DOM; mocks and stubbed globals here).
    pool: "threads",
    isolate: false,
    testTimeout: 20_000, // typing with user-event on a loaded machine
    restoreMocks: true,
    unstubGlobals: true,
  },
});
