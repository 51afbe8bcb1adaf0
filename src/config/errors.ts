/** A configuration that cannot be used; the message names the file and the key path. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
