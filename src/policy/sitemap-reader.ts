/**
 * Reads one sitemap file as it streams in, the way Google accepts them: a sitemaps.org
 * `urlset` or sitemap index, an RSS 2.0 or Atom feed, or a text file of URLs (one per
 * line). Pure: bytes in, URLs out through a sink, and a summary of what the file was and
 * what was wrong with it. Memory stays bounded whatever the file's size: nothing but the
 * text of the element being read is kept.
 *
 * XML is read by saxes, a strict, streaming, well-kept XML parser (the one jsdom uses):
 * it expands only XML's own entities (a DOCTYPE's cannot blow up), reports the line of
 * the first error, and takes text as it comes, chunk by chunk.
 */
import { SaxesParser } from 'saxes';
import type { SaxesTagPlain } from 'saxes';

/** sitemaps.org: at most 50,000 URLs per file. */
export const SITEMAP_MAX_URLS = 50_000;
/** sitemaps.org: at most 50 MB (52,428,800 bytes) per file, uncompressed. */
export const SITEMAP_MAX_BYTES = 52_428_800;
/** sitemaps.org: a URL is less than 2,048 characters. */
export const SITEMAP_MAX_URL_LENGTH = 2_048;

/** What a sitemap file turned out to be. */
export type SitemapFormat = 'urlset' | 'index' | 'rss' | 'atom' | 'text';

export interface SitemapSink {
  /** A page URL (as written in the file, trimmed; absolute http or https). */
  url(loc: string): void;
  /** A sitemap a sitemap index lists. */
  sitemap(loc: string): void;
}

export interface SitemapSummary {
  /** What it was; null when it is none of them (an HTML page, an empty body). */
  readonly format: SitemapFormat | null;
  /** Page URLs given to the sink (at most SITEMAP_MAX_URLS). */
  readonly urls: number;
  /** Sitemaps an index gave to the sink (at most SITEMAP_MAX_URLS). */
  readonly sitemaps: number;
  /** Entries past the 50,000 a file may hold: left out. */
  readonly overLimit: number;
  /** Entries that are not absolute http(s) URLs of fewer than 2,048 characters: left out. */
  readonly invalid: number;
  /** Why the file could not be read to its end (what came before it counts), or null. */
  readonly error: string | null;
}

/** Where, from the root element down, each format keeps its entries. */
const ENTRY_PATHS: Readonly<Record<string, { format: SitemapFormat; path: readonly string[] }>> = {
  urlset: { format: 'urlset', path: ['urlset', 'url', 'loc'] },
  sitemapindex: { format: 'index', path: ['sitemapindex', 'sitemap', 'loc'] },
  rss: { format: 'rss', path: ['rss', 'channel', 'item', 'link'] },
  feed: { format: 'atom', path: ['feed', 'entry', 'link'] },
};

/** Text kept of one entry: enough for any valid URL, bounded for a hostile one. */
const MAX_TEXT = SITEMAP_MAX_URL_LENGTH + 64;

/** An element's name without its namespace prefix: `<s:url>` is `url`. */
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** An absolute http(s) URL of fewer than 2,048 characters (what a sitemap may list). */
export function isSitemapUrl(loc: string): boolean {
  return (
    loc.length > 0 &&
    loc.length < SITEMAP_MAX_URL_LENGTH &&
    /^https?:\/\//i.test(loc) &&
    URL.canParse(loc)
  );
}

/** Reads one file: write() its bytes as they come (decompressed), then end(). */
export class SitemapReader {
  readonly #sink: SitemapSink;
  readonly #decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
  #mode: 'unknown' | 'xml' | 'text' | 'done' = 'unknown';
  #format: SitemapFormat | null = null;
  #error: string | null = null;
  #urls = 0;
  #sitemaps = 0;
  #overLimit = 0;
  #invalid = 0;
  // XML: the open elements' local names, and the entry being read.
  #xml: SaxesParser<{ xmlns: false; position: true }> | undefined;
  #stack: string[] = [];
  #path: readonly string[] = [];
  #text: string | null = null;
  /** The open entry's location, given out when the entry closes (a cut entry is none). */
  #pending: string | null = null;
  // Text: the line not finished yet.
  #line = '';

  constructor(sink: SitemapSink) {
    this.#sink = sink;
  }

  write(bytes: Uint8Array): void {
    if (this.#mode === 'done') return;
    this.#take(this.#decoder.decode(bytes, { stream: true }));
  }

  end(): SitemapSummary {
    if (this.#mode !== 'done') this.#take(this.#decoder.decode());
    if (this.#mode === 'xml') {
      try {
        this.#xml!.close();
      } catch (error) {
        this.#fail(error);
      }
      if (this.#format === null && this.#error === null) this.#error = 'the file is not complete';
    } else if (this.#mode === 'text') {
      this.#textLine(this.#line);
      this.#line = '';
    } else if (this.#mode === 'unknown') {
      this.#error = 'the file is empty';
    }
    this.#mode = 'done';
    return {
      format: this.#format,
      urls: this.#urls,
      sitemaps: this.#sitemaps,
      overLimit: this.#overLimit,
      invalid: this.#invalid,
      error: this.#error,
    };
  }

  #take(text: string): void {
    if (text === '' || this.#mode === 'done') return;
    if (this.#mode === 'unknown') {
      // The first character that is not white space (or a BOM) says what the file is.
      const start = text.search(/[^\s\uFEFF]/);
      if (start === -1) return;
      text = text.slice(start);
      if (/^<(?:!doctype\s+html|html[\s>])/i.test(text)) {
        // Often not well-formed XML: named for what it is rather than its first XML error.
        this.#error = 'not a sitemap: an HTML page';
        this.#mode = 'done';
        return;
      }
      if (text.startsWith('<')) this.#startXml();
      else {
        this.#mode = 'text';
        this.#format = 'text';
      }
    }
    if (this.#mode === 'xml') {
      try {
        this.#xml!.write(text);
      } catch (error) {
        this.#fail(error);
      }
    } else this.#takeText(text);
  }

  #startXml(): void {
    this.#mode = 'xml';
    const xml = new SaxesParser<{ xmlns: false; position: true }>({ position: true, xmlns: false });
    this.#xml = xml;
    xml.on('opentag', (tag) => this.#open(tag));
    xml.on('closetag', () => this.#close());
    xml.on('text', (text) => this.#addText(text));
    xml.on('cdata', (text) => this.#addText(text));
    xml.on('error', (error) => {
      throw error;
    });
  }

  #open(tag: SaxesTagPlain): void {
    if (this.#mode === 'done') return; // the rest of a chunk after the root was refused
    const name = localName(tag.name);
    if (this.#stack.length === 0) {
      const known = ENTRY_PATHS[name];
      if (known === undefined) {
        this.#error = `not a sitemap: the root element is <${tag.name.slice(0, 40)}>`;
        this.#mode = 'done';
        return;
      }
      this.#format = known.format;
      this.#path = known.path;
    }
    this.#stack.push(name);
    const depth = this.#path.length;
    if (this.#at(depth - 1)) this.#pending = null;
    if (!this.#at(depth) || this.#pending !== null) return;
    if (this.#format === 'atom') {
      // An Atom entry's page is its link's href (rel absent or "alternate"); an entry is
      // one page, whatever other links of it say.
      const rel = tag.attributes['rel'];
      const href = tag.attributes['href'];
      if ((rel === undefined || rel === 'alternate') && typeof href === 'string')
        this.#pending = href.trim();
    } else this.#text = '';
  }

  #close(): void {
    if (this.#mode === 'done') return;
    const depth = this.#path.length;
    if (this.#text !== null && this.#at(depth)) {
      this.#pending = this.#text.trim();
      this.#text = null;
    } else if (this.#at(depth - 1) && this.#pending !== null) {
      // The entry is whole: what a file cut inside it said of it does not count.
      this.#entry(this.#pending);
      this.#pending = null;
    }
    this.#stack.pop();
  }

  #addText(text: string): void {
    if (this.#text !== null && this.#text.length < MAX_TEXT)
      this.#text += text.slice(0, MAX_TEXT - this.#text.length);
  }

  /**
   * Whether the open elements are exactly the first `depth` of the path to an entry's
   * location: all of it is the location (not an image's loc), one less the entry (`url`,
   * `item`).
   */
  #at(depth: number): boolean {
    const stack = this.#stack;
    if (stack.length !== depth) return false;
    for (let i = 0; i < depth; i++) if (stack[i] !== this.#path[i]) return false;
    return true;
  }

  #entry(loc: string): void {
    if (!isSitemapUrl(loc)) {
      this.#invalid++;
      return;
    }
    if (this.#format === 'index') {
      if (this.#sitemaps >= SITEMAP_MAX_URLS) this.#overLimit++;
      else {
        this.#sitemaps++;
        this.#sink.sitemap(loc);
      }
    } else if (this.#urls >= SITEMAP_MAX_URLS) this.#overLimit++;
    else {
      this.#urls++;
      this.#sink.url(loc);
    }
  }

  #takeText(text: string): void {
    let from = 0;
    for (;;) {
      const newline = text.indexOf('\n', from);
      if (newline === -1) break;
      const line = this.#line + text.slice(from, newline);
      this.#line = '';
      this.#textLine(line);
      from = newline + 1;
    }
    // A line longer than any URL may be is not kept whole: it is invalid anyway.
    if (this.#line.length < MAX_TEXT) this.#line += text.slice(from, from + MAX_TEXT);
  }

  #textLine(raw: string): void {
    const line = raw.trim();
    if (line !== '') this.#entry(line);
  }

  #fail(error: unknown): void {
    if (this.#error === null) {
      const message = error instanceof Error ? error.message : String(error);
      // saxes: "FILE:LINE:COLUMN: message"; the file name is not ours to show.
      const match = /^(?:[^:]*:)?(\d+):(\d+): (.*)$/s.exec(message);
      this.#error =
        match === null
          ? `invalid XML: ${message.split('\n')[0]!.slice(0, 200)}`
          : `invalid XML at line ${match[1]}, column ${match[2]}: ${match[3]!.split('\n')[0]!.slice(0, 200)}`;
    }
    this.#mode = 'done';
  }
}
