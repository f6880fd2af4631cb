/**
 * What a service's start prints when it stops. A refusal that already says what to do (a port in use:
 * ListenError; a database out of reach: StartRefusal; a setting it cannot take: SettingError) is printed
 * as it is; anything else, which is a defect, with its stack.
 */
const SAID_AS_IS = new Set(['ListenError', 'StartRefusal', 'SettingError']);

export function whyStartStopped(error: unknown): string {
  if (error instanceof Error && SAID_AS_IS.has(error.name)) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
