import { HealthState, type Health } from "../gen/control/v1/provider_pb";
import { Badge } from "../components/ui";
import { time } from "../format";

// HealthBadge shows the shared health of a key or a target: serving,
// resting after failures (until when), or out of service.
export function HealthBadge({ health, outLabel = "disabled" }: { health?: Health; outLabel?: string }) {
  switch (health?.state) {
    case HealthState.RESTING:
      return <Badge tone="amber">resting until {time(health.restUntil)}</Badge>;
    case HealthState.DISABLED:
      return <Badge tone="red">{outLabel}</Badge>;
    default:
      return health && health.failures > 0 ? <Badge tone="amber">serving · {health.failures} recent failures</Badge> : <Badge tone="green">healthy</Badge>;
  }
}

// LastError names the latest failure, kept after a success.
export function LastError({ health }: { health?: Health }) {
  if (!health?.lastError) return null;
  return <span className="text-xs text-slate-500" title={health.lastError}>last error {time(health.lastErrorTime)}: {health.lastError}</span>;
}
