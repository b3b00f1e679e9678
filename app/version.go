package app

import (
	"fmt"
	"runtime/debug"
)

// version is set at link time (-ldflags "-X keygate/app.version=v1.2.3");
// builds without it report the module version, or "dev".
var version = ""

// Version names this build: the linked or module version and, when the
// build recorded one, the VCS revision, e.g. "v1.2.3 (0123456789ab)". It
// is what `keygate version` prints and what traces carry.
func Version() string {
	v, rev := version, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = s.Value[:12]
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if rev != "" {
		return fmt.Sprintf("%s (%s)", v, rev)
	}
	return v
}
