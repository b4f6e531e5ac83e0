import DataLoader from 'dataloader';

/** Reads the values of many keys in one statement; a key it finds nothing for is left out of the map. */
export type LoadMany<V> = (keys: string[]) => Promise<Map<string, V>>;

/**
 * The value of `key` (undefined when `load` found none), by a DataLoader of the request (`shared`, the
 * request context's map, so it ends with the request): every key a request's resolvers ask of one loader
 * (`name`) while a level of the query resolves goes to `load` in one call, one SQL statement, and each key is
 * read at most once per request.
 */
export function loadBatched<V>(
  shared: Map<string, unknown>,
  name: string,
  key: string,
  load: LoadMany<V>,
): Promise<V | undefined> {
  let loader = shared.get(name) as DataLoader<string, V | undefined> | undefined;
  if (!loader) {
    loader = new DataLoader(async (keys) => {
      const found = await load([...keys]);
      return keys.map((wanted) => found.get(wanted));
    });
    shared.set(name, loader);
  }
  return loader.load(key);
}
