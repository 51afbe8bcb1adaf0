/**
 * Every page of a list read newest first by a cursor (the last item's id), as a client
 * pages through it: the pages in order, until one comes back short.
 */
export async function everyPage<T extends { readonly id: number }>(
  limit: number,
  read: (before: number | undefined) => Promise<readonly T[]>,
): Promise<T[][]> {
  const pages: T[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await read(before);
    if (page.length > 0) pages.push([...page]);
    if (page.length < limit) return pages;
    before = page.at(-1)!.id;
  }
}
