import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import tailwindcss from "@tailwindcss/vite";

// The dev server proxies the control API, the /auth routes and the CA
// certificate to a running Keygate
// (KEYGATE_URL, default http://127.0.0.1:7878), so `npm run dev` works
// against real data.
const keygate = process.env.KEYGATE_URL ?? "http://127.0.0.1:7878";

export default defineConfig({
  plugins: [react(), tailwindcss()],
  server: {
    proxy: Object.fromEntries(["/keygate.control.v1.", "/auth/", "/ca.crt"].map((p) => [p, { target: keygate, changeOrigin: true }])),
  },
  build: { outDir: "dist", emptyOutDir: true },
});
