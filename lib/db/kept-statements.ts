/** Statements kept per connection (SQL with long IN lists varies with their length: the oldest go first). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Prepares each SQL text once per connection and keeps it (SQLite's parser and planner cost ~30–60 µs a statement,
 * on the event loop), the least recently used going first past `size`.
 */
export function keptStatements<S>(prepare: (sql: string) => S, size = STATEMENT_CACHE_SIZE): (sql: string) => S {
  const cache = new Map<string, S>();
  return (sql) => {
    let statement = cache.get(sql);
    if (statement !== undefined) {
      cache.delete(sql);
    } else {
      statement = prepare(sql);
      if (cache.size >= size) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  };
}
