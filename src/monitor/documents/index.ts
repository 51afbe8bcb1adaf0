/**
 * Every JSON document robowatch answers or writes, each a zod schema beside the function
 * that builds it: the API's routes are typed against them, its OpenAPI document is made
 * from them, and the command line reads a daemon's answers back through them. A document's
 * type (after JSON: instants are strings) shares its schema's name.
 */
export * from './common.js';
export * from './coverage.js';
export * from './crawlers.js';
export * from './history.js';
export * from './notifications.js';
export * from './sites.js';
export * from './tester.js';
export * from './intent.js';
export * from './alerts.js';
export * from './accounts.js';
