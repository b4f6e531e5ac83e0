// Two instances of the museum over one PostgreSQL, as a balancer spreads requests over them (with
// TEST_DATABASE_URL; on the embedded database, one instance, which is one session).
import { afterAll, beforeAll } from 'vitest';
import {
  basic,
  type ListeningMuseum,
  openSecondInstance,
  startMuseum,
  type TestMuseum,
  VISITOR,
} from './museum.ts';

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** How many instances the file runs on, for its describe titles. */
export const instancesTitle = onPostgres ? 'two instances' : 'one instance';

export interface Instances {
  /** The first instance: the test museum, with its accounts and its database. */
  readonly museum: TestMuseum;
  /** The second instance, on PostgreSQL only. */
  readonly second: ListeningMuseum | undefined;
  /** The instance the n-th request goes to: odd ones to the second, when there is one. */
  instance(n: number): ListeningMuseum;
  /** The n-th request (as the visitor, unless `who` says), with a JSON body if one is given. */
  send(
    n: number,
    method: string,
    path: string,
    options?: { body?: unknown; who?: { name: string; password: string } },
  ): Promise<{ status: number; body: any }>;
}

/**
 * Opens the file's instances before its first test and closes them after its last; `env` is read then (it may
 * name a server a `beforeAll` registered earlier has started).
 */
export function useTwoInstances(env: () => Record<string, string>): Instances {
  let museum: TestMuseum | undefined;
  let second: ListeningMuseum | undefined;
  beforeAll(async () => {
    museum = await startMuseum(env());
    if (onPostgres) second = await openSecondInstance(museum, env());
  });
  afterAll(async () => {
    await second?.close();
    await museum?.close();
  });
  const first = () => {
    if (!museum) throw new Error('an instance before beforeAll opened it');
    return museum;
  };
  const instance = (n: number): ListeningMuseum => (second && n % 2 ? second : first());
  return {
    get museum() {
      return first();
    },
    get second() {
      return second;
    },
    instance,
    async send(n, method, path, { body, who = VISITOR } = {}) {
      const response = await instance(n).fetch(`http://museum.test${path}`, {
        method,
        headers: {
          authorization: basic(who.name, who.password),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
  };
}
