/**
 * The overview of a profile's cache (issue "The mailing at a glance"): contacts per state by USPS
 * code, orders per status, the recipients and their deliveries, deliveries observed per local day
 * (the observed history, timeline.ts) and the campaigns by delivered letters. One pass of grouped
 * reads over the visible snapshot.
 */
import type Database from 'better-sqlite3';
import type { Overview } from '../../../../shared/contract.ts';
import { uspsStateCode } from '../../../../shared/usStates.ts';
import { read, stmt } from './rows.ts';
import { historyReadable } from './timeline.ts';

/** The key of the contacts whose state is not a US state or territory (or is empty). */
export const OTHER_STATE = 'other';

/**
 * The overview's numbers (shared/contract.ts {@link Overview}).
 * @param statusNames the name of each order status code known (the profile's and the learned ones), by code
 */
export function overview(db: Database.Database, statusNames: Readonly<Record<string, string>> = {}): Overview {
  historyReadable(db);
  return read(db, () => {
    const byState: Record<string, number> = {};
    let contacts = 0;
    for (const r of stmt(db, 'SELECT state, count(*) AS n FROM contacts GROUP BY state').all() as { state: string | null; n: number }[]) {
      const code = uspsStateCode(r.state) ?? OTHER_STATE;
      byState[code] = (byState[code] ?? 0) + r.n;
      contacts += r.n;
    }
    const statuses = stmt(db, 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY count(*) DESC, status').all() as { status: number | null; n: number }[];
    const byStatus = statuses.map((r) => ({ code: r.status, name: r.status === null ? null : (statusNames[String(r.status)] ?? null), count: r.n }));
    const recipients = stmt(db, 'SELECT count(*) AS total, coalesce(sum(is_delivered = 1), 0) AS delivered FROM order_recipients').get() as { total: number; delivered: number };
    const deliveriesByDay = historyReadable(db)
      ? (stmt(db, `SELECT date(r.at_or_before, 'localtime') AS day, count(*) AS count FROM history.observation_runs r JOIN history.observations o ON o.run = r.run
          WHERE r.resource = 'orders' AND o.to_value = 'true' AND o.field = (SELECT code FROM history.observed_fields WHERE field = 'isDelivered')
          GROUP BY 1 ORDER BY 1`).all() as { day: string; count: number }[])
      : [];
    const campaigns = (stmt(db, 'SELECT campaign_id, name, recipients, delivered FROM order_campaigns ORDER BY delivered DESC, recipients DESC, campaign_id').all() as {
      campaign_id: string; name: string | null; recipients: number; delivered: number;
    }[]).map((c) => ({ id: c.campaign_id, name: c.name ?? '', recipients: c.recipients, delivered: c.delivered }));
    return {
      contacts: { total: contacts, byState },
      orders: { total: statuses.reduce((sum, r) => sum + r.n, 0), byStatus },
      recipients,
      deliveriesByDay,
      campaigns,
    };
  });
}
