import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import { SCOPES } from '../policy/access-roles.js';
import { visibleControls } from '../policy/wording/format.js';
import type { CliContext } from './context.js';
import { write } from './io.js';
import { cliActor, withAccounts } from './users.js';

const CONFIG_HELP = 'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)';

/** `robowatch keys create|list|revoke`: API keys, for scripts, dashboards and Prometheus. */
export function registerKeys(program: Command, context: CliContext): void {
  const keys = program
    .command('keys')
    .summary('manage API keys: a user’s, with a scope')
    .description(
      'An API key signs a script in as its user (Authorization: Bearer KEY), with a scope no\n' +
        'wider than the user’s role: read (dashboards, Prometheus), write, admin. It is shown\n' +
        'once and stored hashed; revoking it stops it at once.',
    );

  keys
    .command('create')
    .summary('make a key (printed alone on the last line)')
    .requiredOption('--user <name>', 'whose key')
    .requiredOption('--scope <scope>', `what it may do: ${SCOPES.join(', ')}`)
    .option('--name <name>', 'what it is for (default: "<scope> key")')
    .option('--expires <days>', 'it stops working after this many days (default: never)')
    .option('--config <file>', CONFIG_HELP)
    .addHelpText(
      'after',
      `
Example:
  KEY=$(robowatch keys create --user grafana --scope read --name prometheus | tail -n 1)`,
    )
    .action(
      async (options: {
        user: string;
        scope: string;
        name?: string;
        expires?: string;
        config?: string;
      }) => {
        const days = options.expires === undefined ? undefined : Number(options.expires);
        if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3650))
          throw new UsageError(
            `--expires must be a number of days from 1 to 3650, not "${options.expires}"`,
          );
        const made = await withAccounts(context, options.config, (accounts) =>
          accounts.createKey(cliActor(context), {
            user: options.user,
            scope: options.scope,
            ...(options.name === undefined ? {} : { name: options.name }),
            expiresInMs: days === undefined ? null : days * 86_400_000,
          }),
        );
        const { record } = made;
        await write(
          context.io.stdout,
          `Key ${record.id} "${visibleControls(record.name)}" for ${record.user}, scope ${record.scope}${record.expiresAt === null ? '' : `, until ${record.expiresAt.toISOString().slice(0, 10)}`}. Shown once:\n${made.key}\n`,
        );
      },
    );

  keys
    .command('list')
    .summary('list the keys (never the keys themselves)')
    .option('--user <name>', 'only this user’s')
    .option('--config <file>', CONFIG_HELP)
    .action(async (options: { user?: string; config?: string }) => {
      const all = await withAccounts(context, options.config, async (accounts) =>
        accounts.listKeys(
          options.user === undefined ? undefined : (await accounts.requireUser(options.user)).id,
        ),
      );
      const day = (d: Date | null) =>
        d === null ? '-' : d.toISOString().slice(0, 16).replace('T', ' ');
      const text =
        all.length === 0
          ? 'No API keys.\n'
          : all
              .map(
                (k) =>
                  `${k.id}\t${k.user}\t${visibleControls(k.name)}\t${k.scope}\t${k.prefix}…\t${k.revokedAt !== null ? `revoked ${day(k.revokedAt)}` : k.expiresAt !== null ? `until ${day(k.expiresAt)}` : 'no expiry'}\tlast used ${day(k.lastUsedAt)}`,
              )
              .join('\n') + '\n';
      await write(context.io.stdout, text);
    });

  keys
    .command('revoke')
    .summary('revoke a key: it stops working at once')
    .argument('<id>', 'the key’s id (robowatch keys list)')
    .option('--config <file>', CONFIG_HELP)
    .action(async (value: string, options: { config?: string }) => {
      const id = Number(value);
      if (!Number.isSafeInteger(id) || id < 1)
        throw new UsageError(`the key's id must be a positive whole number, not "${value}"`);
      const key = await withAccounts(context, options.config, (accounts) =>
        accounts.revokeKey(cliActor(context), id),
      );
      await write(
        context.io.stdout,
        `Revoked key ${id} "${visibleControls(key.name)}" of ${key.user}.\n`,
      );
    });
}
