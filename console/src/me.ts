// The signed-in user, read once from /auth/me by App and handed to every
// page, so that a page offers only what the user's role may do: the control
// API refuses configuration changes to members (PermissionDenied), and a
// button that can only fail is worse than none.
import { createContext, useContext } from "react";
import type { Me } from "./account";

// MeContext holds the signed-in user; undefined when /auth/me failed (the
// nav shows why).
export const MeContext = createContext<Me | undefined>(undefined);

export const useMe = () => useContext(MeContext);

// useAdmin reports whether the signed-in user may change Keygate's
// configuration (models, settings) and see everyone's calls. In local mode
// the user is the laptop's owner, an administrator.
export const useAdmin = () => useMe()?.role === "admin";
