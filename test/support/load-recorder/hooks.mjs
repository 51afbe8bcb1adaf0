/** The module hooks of register.mjs: each module's URL, as it loads. */
import { appendFileSync } from 'node:fs';
import process from 'node:process';

export async function load(url, context, next) {
  appendFileSync(`${process.env.ROBOWATCH_LOAD_RECORD}`, `${url}\n`);
  return next(url, context);
}
