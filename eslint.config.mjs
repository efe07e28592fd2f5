import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries (docs/style.md): a project depends only on projects whose tags its own tags
 * allow. Apps and libs never depend on tools (no constraint lists type:tool); tools are tagged
 * with the scopes of the apps they drive and depend on libs and on the OpenAPI documents.
 */
export const moduleBoundaries = {
  allow: [],
  enforceBuildableLibDependency: false,
  depConstraints: [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:util', 'type:data-access'] },
    {
      sourceTag: 'type:data-access',
      onlyDependOnLibsWithTags: ['type:util', 'type:data-access'],
    },
    { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:data-access'] },
    {
      sourceTag: 'type:tool',
      onlyDependOnLibsWithTags: ['type:util', 'type:data-access', 'type:contract'],
    },
    { sourceTag: 'type:contract', onlyDependOnLibsWithTags: [] },
    {
      sourceTag: 'scope:card-issue',
      onlyDependOnLibsWithTags: ['scope:shared', 'scope:card-issue'],
    },
    {
      sourceTag: 'scope:client-registration',
      onlyDependOnLibsWithTags: ['scope:shared', 'scope:client-registration'],
    },
    { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  ],
};

/**
 * The apps' test harnesses (apps/<app>/test/index.ts): start the app as main.ts does, typed
 * payload builders. Nx forbids importing an application project whatever the tags, so the
 * rule's own `allow` names these two entry points, and only the tools' lint configs use it
 * (tools/<tool>/eslint.config.mjs): a tool may start an app through its harness and import
 * nothing else of it; an app or a lib importing a harness is still an error.
 */
export const APP_HARNESSES = ['@bank/card-issue/testing', '@bank/client-registration/testing'];

/** The boundary rule as the tools that drive the apps lint with it. */
export const toolBoundariesRule = {
  '@nx/enforce-module-boundaries': ['error', { ...moduleBoundaries, allow: APP_HARNESSES }],
};

export default tseslint.config(
  {
    ignores: [
      '**/dist',
      '**/node_modules',
      '**/.nx',
      '**/coverage',
      '**/.data',
      '**/*.js',
      '**/*.mjs',
      'openapi/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', moduleBoundaries],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: [
      '**/*.spec.ts',
      '**/*.e2e-spec.ts',
      '**/*.integration-spec.ts',
      '**/test/**/*.ts',
      'tools/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  prettier,
);
