/**
 * undici's modules robowatch loads one by one (see undici.ts): each is the CommonJS
 * export of the class or function undici's index re-exports.
 */
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export = Agent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher as AnyDispatcher } from 'undici';
  const Dispatcher: { prototype: Pick<AnyDispatcher, 'request'> };
  export = Dispatcher;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  const request: Dispatcher['request'];
  export = request;
}
