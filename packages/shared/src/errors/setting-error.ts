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
