/**
 * The webhooks' undici Agent, made on their first request: undici's dispatchers (its
 * client, pool and agent code, about 20 ms of CPU to load) are then loaded by the commands
 * that send a webhook rather than by every command that might.
 */
import type { Agent, Dispatcher } from 'undici';

/** What the webhook channel asks of its dispatcher. */
export type RequestDispatcher = Pick<Dispatcher, 'request' | 'close'>;

export function lazyAgent(options: Agent.Options): RequestDispatcher {
  let agent: Promise<Agent> | undefined;
  const made = () =>
    (agent ??= import('./undici.js').then(({ Agent: AgentClass }) => new AgentClass(options)));
  const request = async (requested: Dispatcher.RequestOptions) => (await made()).request(requested);
  const close = async () => {
    if (agent !== undefined) await (await agent).close();
  };
  return { request, close };
}
