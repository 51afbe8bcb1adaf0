/**
 * The README and the pages of docs/: every page is linked from the README, and every
 * relative link of each leads to a file that exists and, with a #fragment, to a heading
 * of that file (as GitHub makes anchors of headings).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const PAGES = ['README.md', ...readdirSync('docs').map((f) => join('docs', f))];

/** GitHub's anchor of a heading: lower case, punctuation but "-" dropped, spaces as "-". */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a Markdown file's headings (outside code blocks). */
function anchorsOf(file: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#+ /.test(line)) found.add(anchor(line.replace(/^#+ /, '')));
  }
  return found;
}

/** The relative links of a Markdown file, outside code blocks and inline code. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/i.test(href));
}

describe('the documentation', () => {
  it('is reached from the README: every page of docs/ is linked', () => {
    const linked = new Set(linksOf('README.md').map((href) => href.split('#')[0]));
    for (const page of PAGES.filter((p) => p !== 'README.md')) expect(linked, page).toContain(page);
  });

  it.each(PAGES)('%s links only to files and headings that exist', (page) => {
    for (const href of linksOf(page)) {
      const [path, fragment] = href.split('#');
      const target = path === '' ? page : normalize(join(dirname(page), path!));
      expect(existsSync(target), `${page}: ${href}`).toBe(true);
      if (fragment !== undefined && target.endsWith('.md'))
        expect(anchorsOf(target), `${page}: ${href}`).toContain(fragment);
    }
  });
});
