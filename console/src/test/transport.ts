// The network edge of the component tests: every Connect client of api.ts
// talks to this transport (setup.ts swaps it in for connect-web's), which
// hands each call to fake service implementations in memory. Requests and
// responses go through the real Connect protocol and protobuf codecs, and a
// method a test does not serve answers Unimplemented, as an older Keygate
// would.
import { createRouterTransport, type ConnectRouter, type Transport } from "@connectrpc/connect";

let current: Transport | undefined;

export const fakeTransport: Transport = {
  unary: (...args) => served().unary(...args),
  stream: (...args) => served().stream(...args),
};

function served(): Transport {
  if (!current) throw new Error("the test serves no control API: call serve() first");
  return current;
}

// serve routes the control API to the given fake services until the next
// test (setup.ts clears it).
export function serve(routes: (router: ConnectRouter) => void) {
  current = createRouterTransport(routes);
}

export function stopServing() {
  current = undefined;
}
