/**
 * undici's connector, from its own module: the robots.txt fetcher opens its connections
 * with it (address lookup, TLS with the server's name, connect timeout) and loads none of
 * undici's dispatchers (see undici.ts).
 */
import buildConnector from 'undici/lib/core/connect.js';

export { buildConnector };
