// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * DESIGN.md's dependency direction, enforced: an import the other way is a design bug,
 * so it fails `npm test` rather than waiting for review.
 */
const restrict = (
  /** @type {string} */ regex,
  /** @type {string} */ message,
  allowTypeImports = false,
) => ({
  regex,
  message,
  allowTypeImports,
});

const impureGlobals = [
  'process',
  'Buffer',
  'require',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'fetch',
  'console',
].map((name) => ({
  name,
  message: 'robots/ and policy/ are pure: take values as arguments instead.',
}));

/** Pure code: no import that `forbidden` matches, no process or clock, no randomness. */
function pure(
  /** @type {string} */ dir,
  /** @type {string} */ forbidden,
  /** @type {string} */ message,
) {
  const clock = 'Pure code takes `now` as an argument.';
  return {
    files: [`src/${dir}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [restrict(forbidden, message)] }],
      'no-restricted-globals': ['error', ...impureGlobals],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: clock },
        { selector: "MemberExpression[object.name='Date'][property.name='now']", message: clock },
        {
          selector: "MemberExpression[object.name='Math'][property.name='random']",
          message: 'Pure code is deterministic.',
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'data/', 'node_modules/', 'test/fixtures/', 'migrations/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  // structured-headers (RFC 9651 Structured Fields) is pure too (text in, values out): the
  // AIPREF usage statements are parsed with it rather than by hand.
  pure(
    'robots',
    '^(?!\\./|structured-headers$)',
    'robots/ is pure and imports only robots/ and the pure parser structured-headers.',
  ),
  // saxes, a streaming XML parser, is pure too (text in, events out: no I/O, no clock):
  // the sitemap reader is built on it rather than on a hand-written XML parser; so is
  // cron-parser (a schedule and a given instant in, instants out): periods are policy.
  // policy/ has folders of its own (changes/, wording/): any depth of ../ that leaves
  // policy/ must land in robots/.
  pure(
    'policy',
    '^(?![./]|saxes$|cron-parser$)|^(\\.\\./)+(lib|config|fetch|store|notify|monitor|web|cli|schedule)/|^(\\.\\./)+(compose|main)\\.js$',
    'policy/ is pure and imports only robots/, policy/ and the pure parsers saxes and cron-parser.',
  ),
  {
    files: ['src/lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [restrict('^\\.\\./', 'lib/ imports nothing from src/.')] },
      ],
    },
  },
  ...['fetch', 'store', 'notify'].map((adapter) => ({
    files: [`src/${adapter}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(
              `^\\.\\./(${['fetch', 'store', 'notify', 'web', 'cli', 'schedule'].filter((d) => d !== adapter).join('|')})/`,
              'Adapters import robots/, policy/ types and lib/ only; never each other or the layers above them.',
            ),
            // An adapter implements the ports the monitor declares: their types, nothing else.
            restrict(
              '^\\.\\./monitor/(?!(ports|records(-[a-z]+)?)\\.js$)',
              'Adapters import only the port types of monitor/ (ports.ts, records*.ts).',
            ),
            restrict(
              '^\\.\\./monitor/(ports|records(-[a-z]+)?)\\.js$',
              'Adapters import only the types of monitor/ports.ts and records*.ts.',
              true,
            ),
          ],
        },
      ],
    },
  })),
  {
    files: ['src/monitor/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(
              '^(\\.\\./)+(fetch|store|notify)/',
              'monitor/ receives adapters as `deps`; import their types only.',
              true,
            ),
            restrict(
              '^(\\.\\./)+(web|cli|schedule|compose\\.js$|main\\.js$)',
              'monitor/ is called by web/, cli/ and schedule/, not the other way.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/web/**/*.{ts,tsx}', 'src/cli/**/*.ts', 'src/schedule/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['pg', '@electric-sql/pglite', 'undici', 'nodemailer', '@hono/node-server'].map(
            (name) => ({
              name,
              message:
                'Drivers and listeners are created in main.ts and reached through store/, fetch/, notify/ and the CLI context.',
            }),
          ),
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
