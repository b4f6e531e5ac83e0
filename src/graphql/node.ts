import { builder } from './builder.ts';

/** The types whose objects have a global id, and so can be fetched again with `node(id)`. */
export const NODE_TYPES = ['SpecialEvent', 'Ticket', 'Account', 'WebhookSubscription', 'Order'] as const;
export type NodeTypeName = (typeof NODE_TYPES)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An object's global id: base64url of `Type:key` (its UUID), the same on every instance and across restarts.
 * A WebhookSubscription's is its `id`, a UUID already: that field was named `id` before global ids were.
 */
export function globalId(type: NodeTypeName, key: string): string {
  if (type === 'WebhookSubscription') return key;
  return Buffer.from(`${type}:${key}`).toString('base64url');
}

/** The type and key a global id names, or null when it names none. */
export function parseGlobalId(id: string): { type: NodeTypeName; key: string } | null {
  if (UUID.test(id)) return { type: 'WebhookSubscription', key: id };
  if (id.length > 100 || !/^[A-Za-z0-9_-]+$/.test(id)) return null;
  const decoded = Buffer.from(id, 'base64url').toString();
  const colon = decoded.indexOf(':');
  const type = decoded.slice(0, colon) as NodeTypeName;
  const key = decoded.slice(colon + 1);
  if (colon < 0 || !NODE_TYPES.includes(type) || !UUID.test(key)) return null;
  return { type, key };
}

// Which type an object found by node(id) is: told by the lookup that found it.
const NODE_TYPE = Symbol('node type');

/** Marks an object found by node(id) with its type, for the interface's resolveType. */
export function asNode<T extends object>(type: NodeTypeName, value: T | null | undefined): T | null {
  if (!value) return null;
  return { ...value, [NODE_TYPE]: type };
}

export const NodeInterface = builder.interfaceRef<object>('Node').implement({
  description:
    'An object with a global id: opaque, stable across instances and restarts, and what normalised client caches (Apollo Client, urql) key objects by. `node(id)` fetches it again.',
  resolveType: (value) => (value as { [NODE_TYPE]?: NodeTypeName })[NODE_TYPE] ?? null,
  fields: (t) => ({
    id: t.id({
      description: 'The global id.',
      resolve: () => {
        throw new Error('each type of Node resolves its own id');
      },
    }),
  }),
});
