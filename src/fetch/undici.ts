/**
 * The parts of undici the webhooks use, each from its own module: the Agent, with the
 * request() it dispatches through (the robots.txt fetcher uses none of undici: Node's
 * http, net and tls). undici's index loads its fetch, WebSocket, cache and cookie code too
 * (731 KB of the bundle), and those touch the web globals (File, Headers) that make Node
 * load its own copy of undici: about 0.1 s of CPU at every start, for nothing a check
 * uses. The paths are undici 7's; the fetcher's and the webhooks' tests run through each
 * of them.
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import request from 'undici/lib/api/api-request.js';

// The index gives every dispatcher its request(); the one method robowatch calls, given
// the same way (undici's index, when a test loads it, assigns the same function).
Dispatcher.prototype.request ??= request;

export { Agent };
