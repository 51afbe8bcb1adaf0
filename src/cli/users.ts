import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { wireAccounts } from '../compose-accounts.js';
import { UsageError } from '../lib/errors.js';
import type { Accounts, Actor } from '../monitor/accounts.js';
import { ROLES } from '../policy/access-roles.js';
import type { CliContext } from './context.js';
import { readConfig, withStore } from './context.js';
import { readInput, write } from './io.js';

const CONFIG_HELP = 'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)';

/** The login a command runs under, as the environment names it (undefined: it does not). */
export function loginName(context: CliContext): string | undefined {
  return [context.env['USER'], context.env['LOGNAME'], context.env['USERNAME']].find(
    (name) => name !== undefined && name.trim() !== '',
  );
}

/** Who a command on this machine acts as, in the audit log. */
export function cliActor(context: CliContext): Actor {
  return {
    name: `robowatch (${loginName(context) ?? 'command line'})`,
    userId: null,
    via: 'cli',
    address: null,
  };
}

/** Runs `use` over the accounts of the configuration's database. */
export async function withAccounts<T>(
  context: CliContext,
  configPath: string | undefined,
  use: (accounts: Accounts) => Promise<T>,
): Promise<T> {
  const config = await readConfig(context, configPath);
  return withStore(context, config, (handle) => use(wireAccounts(context, handle.db)));
}

/** A password from standard input: its first line, as typed or piped. */
async function passwordFromStdin(context: CliContext): Promise<string> {
  const bytes = await readInput('-', 'password', context, {
    maxBytes: 4096,
    advice: 'give the password alone, on one line',
  });
  const line = new TextDecoder().decode(bytes).split(/\r?\n/, 1)[0] ?? '';
  if (line === '') throw new UsageError('--password-stdin: standard input has no password');
  return line;
}

/** `robowatch users add|list|remove|password|sign-out`: the people who sign in. */
export function registerUsers(program: Command, context: CliContext): void {
  const users = program
    .command('users')
    .summary('manage the people who sign in: roles, tags, passwords')
    .description(
      'Users sign in to the web UI with a name and password (or single sign-on), with a\n' +
        'role: viewer (reads everything), editor (also sites, intent, presets, incidents,\n' +
        'backfills, Check now), admin (also users, keys, recipients, the audit log). With the\n' +
        'embedded database, stop the daemon first, or use /api/v1/users.',
    );

  users
    .command('add')
    .summary('add a user')
    .argument('<name>', 'what they sign in with (letters, digits, . _ @ + -)')
    .requiredOption('--role <role>', `their role: ${ROLES.join(', ')}`)
    .option(
      '--tags <tags>',
      'only the sites with one of these tags, comma-separated (viewers and editors)',
    )
    .option('--password-stdin', 'read their password from standard input (12 characters or more)')
    .option('--no-password', 'no password: they sign in by single sign-on only')
    .option('--config <file>', CONFIG_HELP)
    .addHelpText(
      'after',
      `
Without --password-stdin or --no-password, a password is made and printed once.

Examples:
  robowatch users add ana --role admin
  robowatch users add agency --role editor --tags client-a
  printf '%s' "$PASSWORD" | robowatch users add sam --role viewer --password-stdin`,
    )
    .action(
      async (
        name: string,
        options: {
          role: string;
          tags?: string;
          passwordStdin?: boolean;
          password: boolean;
          config?: string;
        },
      ) => {
        const made = options.password && options.passwordStdin !== true;
        const password = !options.password
          ? undefined
          : options.passwordStdin === true
            ? await passwordFromStdin(context)
            : randomBytes(15).toString('base64url');
        const user = await withAccounts(context, options.config, (accounts) =>
          accounts.addUser(cliActor(context), {
            name,
            role: options.role,
            tags: options.tags?.split(',') ?? [],
            ...(password === undefined ? {} : { password }),
          }),
        );
        const limited = user.tags.length === 0 ? '' : `, only sites tagged ${user.tags.join(', ')}`;
        await write(
          context.io.stdout,
          `Added ${user.name} (${user.role}${limited}).\n${made ? `Their password (shown once): ${password}\n` : ''}`,
        );
      },
    );

  users
    .command('list')
    .summary('list the users')
    .option('--json', 'one JSON object per user')
    .option('--config <file>', CONFIG_HELP)
    .action(async (options: { json?: boolean; config?: string }) => {
      const all = await withAccounts(context, options.config, (accounts) => accounts.listUsers());
      const text = options.json
        ? all
            .map((u) =>
              JSON.stringify({
                name: u.name,
                role: u.role,
                tags: u.tags,
                password: u.hasPassword,
                sso: u.oidc !== null,
                createdAt: u.createdAt.toISOString(),
              }),
            )
            .join('\n') + (all.length > 0 ? '\n' : '')
        : all.length === 0
          ? 'No users: web.token (if set) is the only way in. Add one: robowatch users add NAME --role admin\n'
          : all
              .map(
                (u) =>
                  `${u.name}\t${u.role}\t${u.tags.length === 0 ? 'every site' : `tags: ${u.tags.join(', ')}`}\t${[u.hasPassword ? 'password' : '', u.oidc === null ? '' : 'single sign-on'].filter(Boolean).join(', ')}`,
              )
              .join('\n') + '\n';
      await write(context.io.stdout, text);
    });

  users
    .command('change')
    .summary('change a user’s role or the sites they see')
    .argument('<name>')
    .option('--role <role>', `their role: ${ROLES.join(', ')}`)
    .option('--tags <tags>', 'only the sites with one of these tags, comma-separated')
    .option('--every-site', 'see every site again (no tags)')
    .option('--config <file>', CONFIG_HELP)
    .addHelpText(
      'after',
      `
Examples:
  robowatch users change sam --role editor
  robowatch users change agency --tags client-a,client-b
  robowatch users change agency --every-site`,
    )
    .action(
      async (
        name: string,
        options: { role?: string; tags?: string; everySite?: boolean; config?: string },
      ) => {
        if (options.tags !== undefined && options.everySite === true)
          throw new UsageError('give --tags or --every-site, not both');
        if (options.role === undefined && options.tags === undefined && options.everySite !== true)
          throw new UsageError('say what to change: --role, --tags or --every-site');
        const tags = options.everySite === true ? [] : options.tags?.split(',');
        const user = await withAccounts(context, options.config, (accounts) =>
          accounts.updateUser(cliActor(context), name, {
            ...(options.role === undefined ? {} : { role: options.role }),
            ...(tags === undefined ? {} : { tags }),
          }),
        );
        const sees =
          user.tags.length === 0 ? 'every site' : `the sites tagged ${user.tags.join(', ')}`;
        await write(
          context.io.stdout,
          `${user.name} is ${user.role} and sees ${sees}.
`,
        );
      },
    );

  users
    .command('remove')
    .summary('remove a user: their sessions and keys stop working at once')
    .argument('<name>')
    .option('--config <file>', CONFIG_HELP)
    .action(async (name: string, options: { config?: string }) => {
      await withAccounts(context, options.config, (accounts) =>
        accounts.removeUser(cliActor(context), name),
      );
      await write(context.io.stdout, `Removed ${name}.\n`);
    });

  users
    .command('password')
    .summary('set a user’s password (from standard input); signs them out everywhere')
    .argument('<name>')
    .option('--config <file>', CONFIG_HELP)
    .action(async (name: string, options: { config?: string }) => {
      const password = await passwordFromStdin(context);
      await withAccounts(context, options.config, (accounts) =>
        accounts.updateUser(cliActor(context), name, { password }),
      );
      await write(context.io.stdout, `Set ${name}'s password; their sessions ended.\n`);
    });

  users
    .command('sign-out')
    .summary('end every session of a user (sign them out everywhere)')
    .argument('<name>')
    .option('--config <file>', CONFIG_HELP)
    .action(async (name: string, options: { config?: string }) => {
      const ended = await withAccounts(context, options.config, (accounts) =>
        accounts.signOutEverywhere(cliActor(context), name),
      );
      await write(
        context.io.stdout,
        `Signed ${name} out everywhere (${ended} session${ended === 1 ? '' : 's'}).\n`,
      );
    });
}
