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
    restoreMocks: true,
    unstubGlobals: true,
  },
});
