// renderAs renders a page as a signed-in user of the given role, the way
// App hands the role to every page.
import type { ReactElement } from "react";
import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { create } from "@bufbuild/protobuf";
import { MeSchema } from "../gen/account/v1/account_pb";
import { MeContext } from "../me";

export function renderAs(role: "admin" | "member", ui: ReactElement) {
  const me = create(MeSchema, { userId: role === "admin" ? "ada" : "max", name: role === "admin" ? "Ada" : "Max", role, mode: "header" });
  const user = userEvent.setup();
  return { user, ...render(<MeContext value={me}>{ui}</MeContext>) };
}
