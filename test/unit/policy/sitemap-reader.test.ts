/** Reading sitemap files as Google accepts them, streamed, with every way one goes wrong. */
import { describe, expect, it } from 'vitest';
import { SitemapReader } from '../../../src/policy/sitemap-reader.js';

function read(text: string | Uint8Array, chunk = Number.POSITIVE_INFINITY) {
  const urls: string[] = [];
  const sitemaps: string[] = [];
  const reader = new SitemapReader({ url: (u) => urls.push(u), sitemap: (s) => sitemaps.push(s) });
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  for (let i = 0; i < bytes.length; i += Math.min(chunk, bytes.length))
    reader.write(bytes.subarray(i, i + chunk));
  return { urls, sitemaps, summary: reader.end() };
}

const URLSET = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>
      https://shop.example/products/1?ref=a&amp;b=2
    </loc>
    <lastmod>2026-01-01</lastmod>
    <image:image><image:loc>https://cdn.example/1.jpg</image:loc></image:image>
  </url>
  <url><loc><![CDATA[https://shop.example/café]]></loc></url>
  <url><loc>/relative/page</loc></url>
  <url><loc>ftp://shop.example/file</loc></url>
</urlset>`;

describe('the sitemap reader', () => {
  it('reads a urlset: page locations only, entities and CDATA resolved, bad entries counted', () => {
    const { urls, summary } = read(URLSET);
    expect(urls).toEqual([
      'https://shop.example/products/1?ref=a&b=2',
      'https://shop.example/café',
    ]);
    expect(summary).toEqual({
      format: 'urlset',
      urls: 2,
      sitemaps: 0,
      overLimit: 0,
      invalid: 2,
      error: null,
    });
  });

  it('reads the same whatever the chunks, down to one byte at a time (multi-byte characters split)', () => {
    expect(read(URLSET, 1)).toEqual(read(URLSET));
    expect(read(URLSET, 7)).toEqual(read(URLSET));
  });

  it('takes namespace prefixes on the sitemap elements', () => {
    const { urls, summary } = read(
      '<s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9"><s:url><s:loc>https://a.example/x</s:loc></s:url></s:urlset>',
    );
    expect(urls).toEqual(['https://a.example/x']);
    expect(summary.format).toBe('urlset');
  });

  it('reads a sitemap index as the sitemaps it lists', () => {
    const { urls, sitemaps, summary } = read(`<?xml version="1.0"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://a.example/sitemap-1.xml.gz</loc><lastmod>2026-01-01</lastmod></sitemap>
  <sitemap><loc>https://a.example/sitemap-2.xml</loc></sitemap>
</sitemapindex>`);
    expect(urls).toEqual([]);
    expect(sitemaps).toEqual([
      'https://a.example/sitemap-1.xml.gz',
      'https://a.example/sitemap-2.xml',
    ]);
    expect(summary).toMatchObject({ format: 'index', sitemaps: 2, error: null });
  });

  it('reads RSS 2.0 and Atom feeds as Google does: each item’s or entry’s link', () => {
    const rss = read(`<rss version="2.0"><channel><title>t</title><link>https://a.example/</link>
  <item><title>one</title><link>https://a.example/posts/1</link></item>
  <item><link>https://a.example/posts/2</link></item>
</channel></rss>`);
    expect(rss.urls).toEqual(['https://a.example/posts/1', 'https://a.example/posts/2']);
    expect(rss.summary.format).toBe('rss');
    const atom = read(`<feed xmlns="http://www.w3.org/2005/Atom">
  <link rel="self" href="https://a.example/feed.atom"/>
  <entry><link rel="edit" href="https://a.example/edit/1"/><link href="https://a.example/posts/1"/></entry>
  <entry><link rel="alternate" href="https://a.example/posts/2"/></entry>
</feed>`);
    expect(atom.urls).toEqual(['https://a.example/posts/1', 'https://a.example/posts/2']);
    expect(atom.summary.format).toBe('atom');
  });

  it('takes one page per Atom entry when it links the page twice (ultimate-sitemap-parser)', () => {
    // As ultimate-sitemap-parser's rss_atom fixture: a link with href and one with
    // rel="alternate" for the same page; six entries are six pages.
    const entries = Array.from(
      { length: 6 },
      (_, i) => `<entry><title>Post ${i}</title>
    <link href="https://a.example/posts/${i}"/>
    <link rel="alternate" type="text/html" href="https://a.example/posts/${i}?format=html"/>
    <id>tag:a.example,2026:${i}</id></entry>`,
    ).join('\n');
    const atom = read(`<feed xmlns="http://www.w3.org/2005/Atom">${entries}</feed>`);
    expect(atom.urls).toEqual(Array.from({ length: 6 }, (_, i) => `https://a.example/posts/${i}`));
    expect(atom.summary).toMatchObject({ urls: 6, invalid: 0 });
    // A second <loc> in a <url>, or a second <link> in an RSS item, is not a second page.
    expect(
      read(
        '<urlset><url><loc>https://a.example/a</loc><loc>https://a.example/b</loc></url></urlset>',
      ).urls,
    ).toEqual(['https://a.example/a']);
  });

  it('reads a text sitemap: one URL a line, any line ending, a BOM, blank lines skipped', () => {
    const { urls, summary } = read(
      '\uFEFFhttps://a.example/1\r\n\r\n  https://a.example/2  \nnot a url\nhttps://a.example/3',
    );
    expect(urls).toEqual(['https://a.example/1', 'https://a.example/2', 'https://a.example/3']);
    expect(summary).toEqual({
      format: 'text',
      urls: 3,
      sitemaps: 0,
      overLimit: 0,
      invalid: 1,
      error: null,
    });
  });

  it('keeps the first 50,000 URLs of a file and counts the rest', () => {
    const lines = Array.from(
      { length: 50_010 },
      (_, i) => `<url><loc>https://a.example/${i}</loc></url>`,
    );
    const { urls, summary } = read(`<urlset>${lines.join('')}</urlset>`, 65_536);
    expect(urls).toHaveLength(50_000);
    expect(urls.at(-1)).toBe('https://a.example/49999');
    expect(summary).toMatchObject({ urls: 50_000, overLimit: 10, error: null });
  });

  it('says where broken XML breaks, keeping what came before', () => {
    const { urls, summary } = read(
      '<urlset>\n<url><loc>https://a.example/1</loc></url>\n<url><loc>https://a.example/2</loc></url>\n<url><loc>https://a.example/3</loc></ur>\n<url><loc>https://a.example/4</loc></url></urlset>',
    );
    // saxes closes the third entry at its misspelt end tag, then reports the tag.
    expect(urls).toEqual(['https://a.example/1', 'https://a.example/2', 'https://a.example/3']);
    expect(summary.error).toMatch(/^invalid XML at line 4, column \d+: /);
    const cut = read('<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.ex');
    expect(cut.urls).toEqual(['https://a.example/1']);
    expect(cut.summary.error).toMatch(/^invalid XML/);
    // Cut inside an entry whose location had closed: that entry does not count either.
    const afterLoc = read(
      '<urlset>\n<url><loc>https://a.example/1</loc></url>\n<url><loc>https://a.example/2</loc><lastmod>2026-',
    );
    expect(afterLoc.urls).toEqual(['https://a.example/1']);
    expect(afterLoc.summary).toMatchObject({ urls: 1 });
    expect(afterLoc.summary.error).toMatch(/^invalid XML at line 3, column \d+: /);
  });

  it('names what is not a sitemap: an HTML page, another XML document, nothing', () => {
    expect(
      read('<!doctype html><html><body><a href="https://a.example/">x</a>').summary,
    ).toMatchObject({
      format: null,
      error: 'not a sitemap: an HTML page',
    });
    expect(read('<?xml version="1.0"?><svg><loc>https://a.example/</loc></svg>')).toEqual({
      urls: [],
      sitemaps: [],
      summary: {
        format: null,
        urls: 0,
        sitemaps: 0,
        overLimit: 0,
        invalid: 0,
        error: 'not a sitemap: the root element is <svg>',
      },
    });
    expect(read(' \n ').summary.error).toBe('the file is empty');
  });

  it('refuses entity expansion and bounds what a hostile entry can make it hold', () => {
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<urlset><url><loc>https://a.example/&lol3;</loc></url></urlset>`;
    const { urls, summary } = read(bomb);
    expect(urls).toEqual([]);
    expect(summary.error).toMatch(/^invalid XML at line 4/);
    const long = read(
      `<urlset><url><loc>https://a.example/${'x'.repeat(1_000_000)}</loc></url></urlset>`,
    );
    expect(long.summary).toMatchObject({ urls: 0, invalid: 1, error: null });
    const longLine = read(`https://a.example/${'y'.repeat(1_000_000)}\nhttps://a.example/ok`, 4096);
    expect(longLine.urls).toEqual(['https://a.example/ok']);
    expect(longLine.summary.invalid).toBe(1);
  });
});
