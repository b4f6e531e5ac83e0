// What the graph reads of accounts by id, batched per request (src/common/batch.ts, by dataloader).
import { loadBatched } from '../common/batch.ts';
import type { Queryable } from '../db/sql.ts';
import { ACCOUNTS_BY_ID } from './accounts.queries.ts';
import type { Principal } from './authenticator.ts';

/** An account as `me` shows it: to itself, or to staff (read in batches); anyone else gets null. */
export async function loadAccount(
  sql: Queryable,
  shared: Map<string, unknown>,
  viewer: Principal,
  id: string,
): Promise<Principal | null> {
  if (viewer.id === id) return viewer;
  if (viewer.role !== 'staff') return null;
  const account = await loadBatched(shared, 'accounts.byId', id, async (ids) => {
    const rows = await sql.query(ACCOUNTS_BY_ID, [ids]);
    return new Map(rows.map((row) => [row.id, row]));
  });
  return account ?? null;
}
