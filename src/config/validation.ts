/**
 * The configuration's validation (validate.ts: zod, the YAML and cron readers), loaded at
 * its first use: a command that reads a file it validated before, with nothing made in
 * the UI or API to check, never loads it.
 */
import type * as Validate from './validate.js';

export type Validation = typeof Validate;

let loaded: Validation | undefined;

/** Loads the validation (once). */
export async function loadValidation(): Promise<Validation> {
  loaded ??= await import('./validate.js');
  return loaded;
}

/** The validation, once loadValidation() has resolved (a defect otherwise, said as one). */
export function validation(): Validation {
  if (loaded === undefined)
    throw new Error('the configuration validation is used before loadValidation() resolved');
  return loaded;
}
