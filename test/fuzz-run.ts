// `npm run fuzz`: 10 000 hostile requests (test/support/fuzz-requests.ts) against a started server process
// on 127.0.0.1, 16 at a time; prints the count of each status and exits 1 on any 5xx or any error answer
// of the wrong shape. FUZZ_REQUESTS and FUZZ_SEED change the run; the seed is printed for replaying it.
import fc from 'fast-check';
import { checkAnswer, describeRequest, fuzzRequest, type WireRequest } from './support/fuzz-requests.ts';
import { basic } from './support/museum.ts';
import { spawnServer } from './support/server.ts';

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const PARALLEL = 16;
const STAFF = { name: 'fuzz-staff', password: 'fuzz-staff-password' };
const VISITOR = { name: 'fuzz-visitor', password: 'fuzz-visitor-password' };

// Behind a "proxy" (MUSEUM_TRUST_PROXY): each request names its own client address, so the garbled credentials
// among them are throttled per address, as they would be from many clients, not all from 127.0.0.1.
const server = await spawnServer({
  DATABASE_URL: 'memory://',
  MUSEUM_ADMIN_USER: STAFF.name,
  MUSEUM_ADMIN_PASSWORD: STAFF.password,
  MUSEUM_TRUST_PROXY: '1',
  LOG_LEVEL: 'info',
});

async function setUp() {
  const staff = basic(STAFF.name, STAFF.password);
  const post = async (path: string, body: unknown, authorization: string) => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  await post(
    '/graphql',
    {
      query: 'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name } }',
      variables: { input: { ...VISITOR, role: 'visitor' } },
    },
    staff,
  );
  const day = new Date(Date.now() + 7 * 86_400_000);
  while ([0, 6].includes(day.getUTCDay())) day.setUTCDate(day.getUTCDate() + 1);
  const date = day.toISOString().slice(0, 10);
  const event = await post(
    '/special-events',
    { name: 'Fuzz night', location: 'Hall', eventDescription: 'Odd requests.', dates: [date], price: 5 },
    staff,
  );
  const visitor = basic(VISITOR.name, VISITOR.password);
  const ticket = await post(
    '/tickets',
    { ticketType: 'general', ticketDate: date, email: 'fuzz@example.com' },
    visitor,
  );
  return { visitor, staff, eventId: event.eventId as string, ticketId: ticket.ticketId as string };
}

const counts = new Map<string, number>();
const failures: string[] = [];
let started = 0;

async function send(request: WireRequest, index: number) {
  const headers = {
    ...request.headers,
    'x-forwarded-for': `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
  };
  let key: string;
  try {
    const response = await fetch(`${server.url}${request.path}`, {
      method: request.method,
      headers,
      body: request.body,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    key = String(response.status);
    const problems = checkAnswer(request, response.status, response.headers.get('content-type'), text);
    if (problems.length > 0 && failures.length < 20)
      failures.push(
        `${problems.join(', ')}: ${describeRequest(request)} → ${response.status} ${text.slice(0, 300)}`,
      );
    if (problems.length > 0) counts.set('wrong shape', (counts.get('wrong shape') ?? 0) + 1);
  } catch (error) {
    // The server may close the connection on a request it refused before reading its body (413).
    key = `connection closed (${(error as Error).cause ? String((error as { cause: { code?: string } }).cause.code) : (error as Error).name})`;
  }
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const began = performance.now();
try {
  const context = await setUp();
  const requests = fc.sample(fuzzRequest(context), { numRuns: TOTAL, seed: SEED });
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (started < requests.length) {
        const index = started++;
        await send(requests[index]!, index);
      }
    }),
  );
  const ready = await fetch(`${server.url}/health/ready`);
  counts.set('health/ready afterwards', ready.status);
} finally {
  await server.stop();
}

const seconds = ((performance.now() - began) / 1000).toFixed(1);
const serverErrors = [...counts]
  .filter(([status]) => /^5\d\d$/.test(status))
  .reduce((sum, [, n]) => sum + n, 0);
const summary = [...counts]
  .filter(([key]) => /^\d+$/.test(key))
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([status, n]) => `${status}: ${n}`)
  .join(', ');
for (const failure of failures) console.error(failure);
for (const [key, n] of counts) if (!/^\d+$/.test(key)) console.log(`${key}: ${n}`);
console.log(
  `fuzz: ${TOTAL} requests in ${seconds}s (seed ${SEED}) — ${summary} — 5xx: ${serverErrors}, wrong shape: ${counts.get('wrong shape') ?? 0}`,
);
process.exit(
  serverErrors > 0 || counts.has('wrong shape') || counts.get('health/ready afterwards') !== 200 ? 1 : 0,
);
