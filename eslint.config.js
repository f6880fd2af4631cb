import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Layering rules (docs/architecture.md): domain never imports doors or storage drivers. */
const noDriverImports = {
  patterns: [
    { group: ['kysely', 'better-sqlite3', 'pg', '**/store/kysely/**'], message: 'Only store/kysely talks to the database.' },
    { group: ['fastify', '**/doors/**'], message: 'The domain must not know the doors.' },
  ],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // Tests read JSON answers loosely on purpose; the assertions pin the shapes.
  { files: ['packages/*/test/**/*.ts', 'bench/**/*.ts', 'test-support/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['packages/*/src/domain/**/*.ts'], rules: { 'no-restricted-imports': ['error', noDriverImports] } },
  {
    files: ['scripts/**/*.mjs', '.ci/**/*.mjs', 'bench/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
