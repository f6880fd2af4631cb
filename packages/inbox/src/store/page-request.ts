/** One page of a list read from a store: a cursor and a size. Its own module, so every store interface can take it. */
export interface PageRequest {
  /** Exclusive bound from the previous page. */
  after?: string | undefined;
  limit: number;
}
