/**
 * Per-request batching, DataLoader-style: every key a request's resolvers ask one loader for while a level of
 * the query resolves goes to its `load` in one call (one SQL statement), and each key is read at most once
 * per request. Kept in `RequestContext.shared`, so it ends with the request, as the other shared reads do.
 */
export type LoadMany<V> = (keys: string[]) => Promise<Map<string, V>>;

interface LoaderState<V> {
  loaded: Map<string, Promise<V | undefined>>;
  pending: { keys: string[]; result: Promise<Map<string, V>>; start: () => void } | null;
}

function stateOf<V>(shared: Map<string, unknown>, name: string): LoaderState<V> {
  let state = shared.get(name) as LoaderState<V> | undefined;
  if (!state) {
    state = { loaded: new Map(), pending: null };
    shared.set(name, state);
  }
  return state;
}

/**
 * The value of `key` (undefined when `load` found none), loaded together with the other keys asked of the
 * same loader (`name`) before the current microtasks and the next tick have run: sibling fields of a list
 * have all been started by then, as DataLoader schedules its batches.
 */
export function loadBatched<V>(
  shared: Map<string, unknown>,
  name: string,
  key: string,
  load: LoadMany<V>,
): Promise<V | undefined> {
  const state = stateOf<V>(shared, name);
  const known = state.loaded.get(key);
  if (known) return known;
  if (!state.pending) {
    let start!: () => void;
    const keys: string[] = [];
    const result = new Promise<void>((resolve) => {
      start = resolve;
    }).then(() => load(keys));
    const pending = { keys, result, start };
    state.pending = pending;
    Promise.resolve().then(() =>
      process.nextTick(() => {
        if (state.pending === pending) state.pending = null;
        pending.start();
      }),
    );
  }
  state.pending.keys.push(key);
  const value = state.pending.result.then((values) => values.get(key));
  state.loaded.set(key, value);
  return value;
}
