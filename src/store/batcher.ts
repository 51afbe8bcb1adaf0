/**
 * Batches the store's frequent statements (group commit for writes, one query for many
 * reads): each item's promise resolves once its batch's statement is done; while one is
 * in flight the next items wait, and the following statement takes them all at once
 * (at most `most`). Under load the batches form by themselves, with no timer and nothing
 * held back: nothing is acknowledged before it is stored. `write` answers each item.
 */
export class Batcher<T, R> {
  #queue: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  #draining = false;

  constructor(
    private readonly write: (batch: T[]) => Promise<R[]>,
    private readonly most: number,
  ) {}

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.most);
      try {
        const results = await this.write(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i]!));
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.#draining = false;
  }
}
