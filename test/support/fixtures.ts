import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of a file under test/fixtures/. */
export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}

export function readFixture(relative: string): Uint8Array {
  return new Uint8Array(readFileSync(fixturePath(relative)));
}

export function readJsonFixture<T>(relative: string): T {
  return JSON.parse(readFileSync(fixturePath(relative), 'utf8')) as T;
}

export interface RealWorldFile {
  path: string;
  size: number;
  category: string;
}

/** The real-world robots.txt files copied from shared/corpus (see scripts/select-fixtures.ts). */
export function realWorldFiles(): RealWorldFile[] {
  return readJsonFixture<{ files: RealWorldFile[] }>('realworld/MANIFEST.json').files;
}
