/**
 * A row of `sync_runs` (docs/cache-schema.md) as the app shows it: the sync's bookkeeping
 * (build/syncBookkeeping.ts) returns the run it recorded, and the sync history (read/queries.ts)
 * lists them, in the same shape.
 */
import type { SyncRun } from '../../../../shared/contract.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** Maps a sync_runs row to a {@link SyncRun}. */
export function toSyncRun(r: Record<string, unknown>): SyncRun {
  return {
    runId: str(r.run_id), resource: r.resource as Resource, startedAt: str(r.started_at), endedAt: (r.ended_at as string | null) ?? null,
    outcome: r.outcome as SyncRun['outcome'], rows: Number(r.rows ?? 0), invalidRecords: Number(r.invalid_records ?? 0),
    changes: r.added === null || r.added === undefined ? null : { added: Number(r.added), changed: Number(r.changed ?? 0), removed: Number(r.removed ?? 0) },
    observed: r.h_observations === null || r.h_observations === undefined ? null : { observations: Number(r.h_observations), bytes: Number(r.h_bytes ?? 0) },
    error: r.error_code ? { code: str(r.error_code), message: str(r.error_message) } : null,
  };
}
