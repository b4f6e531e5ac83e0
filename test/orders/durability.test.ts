// An order acknowledged with 201 survives a kill -9 of the server (issue 27): every ticket of it, read back
// from a new process on the same database (its own: embedded on disk, or a PostgreSQL database).
import { expect, it } from 'vitest';
import { basic, ownDatabase, STAFF, upcomingOpenDay } from '../support/museum.ts';
import { spawnServer } from '../support/server.ts';
import { eventLine, general, order } from '../support/visit.ts';

const staff = { authorization: basic(STAFF.name, STAFF.password), 'content-type': 'application/json' };

it('keeps an order acknowledged with 201, every ticket of it, through a kill -9 of the server', async () => {
  const database = await ownDatabase();
  const env = { ...database.env, MUSEUM_ADMIN_USER: STAFF.name, MUSEUM_ADMIN_PASSWORD: STAFF.password };
  try {
    const first = await spawnServer(env);
    let placed: any;
    try {
      const event = await fetch(`${first.url}/special-events`, {
        method: 'POST',
        headers: staff,
        body: JSON.stringify({
          name: 'Survives a crash',
          location: 'Hall',
          eventDescription: 'Kill -9',
          dates: [upcomingOpenDay(1)],
          price: 5,
        }),
      });
      const { eventId } = (await event.json()) as { eventId: string };
      const response = await fetch(`${first.url}/orders`, {
        method: 'POST',
        headers: staff,
        body: JSON.stringify(
          order(general(upcomingOpenDay(1), 3), eventLine(eventId, upcomingOpenDay(1), 2)),
        ),
      });
      expect(response.status).toBe(201);
      placed = await response.json();
    } finally {
      // At once, with no chance to flush or close anything.
      first.child.kill('SIGKILL');
      await first.exited;
    }

    const restarted = await spawnServer(env);
    try {
      const read = await fetch(`${restarted.url}/orders/${placed.orderId}`, { headers: staff });
      expect(read.status).toBe(200);
      // The order as it was acknowledged, and its tickets mail, queued with it (issue 38).
      const { emailDelivery, ...kept } = (await read.json()) as { emailDelivery: { status: string } };
      expect(kept).toEqual(placed);
      expect(['pending', 'sent']).toContain(emailDelivery.status);
      for (const ticket of placed.tickets) {
        const one = await fetch(`${restarted.url}/tickets/${ticket.ticketId}`, { headers: staff });
        expect(((await one.json()) as { confirmationCode: string }).confirmationCode).toBe(
          ticket.confirmationCode,
        );
      }
    } finally {
      await restarted.stop();
    }
  } finally {
    await database.drop();
  }
}, 120_000);
