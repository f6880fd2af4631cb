import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Burst limits off unless a test turns them on (each service's rateLimit option).
    env: { VALIDATE_OUTPUT: '1', LOG_LEVEL: 'silent', INBOX_RATE_LIMIT: '0', DIRECTORY_RATE_LIMIT: '0' },
  },
});
