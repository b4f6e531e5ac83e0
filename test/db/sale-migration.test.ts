// The migration of a sale (issue 36) on a database that already sold tickets: they become adult tickets at
// the prices it saw, and the answers kept for Idempotency-Key replays say so too, so a replay after the
// upgrade answers as a new purchase would.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { execute } from '../support/db.ts';

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ kind: 'embedded', dataDir: null });
});
afterAll(() => db?.close());

describe('Migration20261126120000 on a database with sales', () => {
  it('prices the tickets sold before, and the answers kept for replays, as they were sold', async () => {
    await migrate(db, undefined, { to: 'Migration20261125000000' });
    const [event, general, eventTicket, orderId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const account = randomUUID();
    await execute(
      db,
      `insert into account (id, name, role, password_hash, created_at) values ($1, 'ana', 'visitor', 'x', now())`,
      [account],
    );
    await execute(
      db,
      `insert into special_event (id, name, location, event_description, price, created_at) values ($1, 'Tea', 'Hall', 'Tea.', 12.5, now())`,
      [event],
    );
    await execute(
      db,
      `insert into ticket_order (id, account_id, email, created_at) values ($1, $2, 'a@example.com', now())`,
      [orderId, account],
    );
    await execute(
      db,
      `insert into ticket (id, account_id, ticket_type, ticket_date, event_id, email, confirmation_code, created_at, order_id, order_position)
       values ($1, $2, 'general', '2030-09-09', null, 'a@example.com', 'ticket-general-aaaaaa-aaaaa', now(), null, null),
              ($3, $4, 'event', '2030-09-09', $5, 'a@example.com', 'ticket-event-bbbbbb-bbbbb', now(), $6, 0)`,
      [general, account, eventTicket, account, event, orderId],
    );
    const single = {
      message: 'Museum general entry ticket purchased',
      ticketId: general,
      ticketType: 'general',
    };
    const order = { orderId, tickets: [{ ticketId: eventTicket, ticketType: 'event' }] };
    await execute(
      db,
      `insert into idempotency_record (account_id, key, request_hash, response, created_at)
       values ($1, 'one', 'h1', $2::jsonb, now()), ($3, 'two', 'h2', $4::jsonb, now())`,
      [account, JSON.stringify(single), account, JSON.stringify(order)],
    );

    await migrate(db);

    const tickets = await execute<{ id: string; category: string; price: number }[]>(
      db,
      'select id, category, price from ticket order by ticket_type',
    );
    expect(tickets).toEqual([
      { id: eventTicket, category: 'adult', price: 1250 },
      { id: general, category: 'adult', price: 2000 },
    ]);
    const answers = await execute<{ key: string; response: Record<string, unknown> }[]>(
      db,
      'select key, response from idempotency_record order by key',
    );
    expect(answers[0]!.response).toEqual({ ...single, category: 'adult', price: 2000 });
    expect(answers[1]!.response).toEqual({
      orderId,
      tickets: [{ ticketId: eventTicket, ticketType: 'event', category: 'adult', price: 1250 }],
    });
  });
});
