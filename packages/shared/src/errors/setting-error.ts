/**
 * A setting (an environment variable) a service cannot start with, said in an operator's words:
 * which setting, what it takes, what it was given. A start prints it without a stack (`name` is
 * 'SettingError'; scripts test it, as they do ListenError and StartRefusal).
 */
export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}

/** A key given as a setting: base64 of exactly `bytes` bytes, or a SettingError naming the setting. */
export function keyFromSetting(name: string, value: string, bytes: number): Buffer {
  const key = Buffer.from(value.trim(), 'base64');
  if (key.length !== bytes) {
    throw new SettingError(`${name} must be base64 of ${bytes} bytes (such as \`openssl rand -base64 ${bytes}\`); it holds ${key.length}`);
  }
  return key;
}
