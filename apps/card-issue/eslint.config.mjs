import base from '../../eslint.config.mjs';

export default [
  ...base,
  {
    // The reference services stand in for external ones: the card issue module, its outbox and
    // its gateways reach them only over HTTP (docs/api/card-issue.md), never by importing their code.
    files: ['src/card-issues/**/*.ts', 'src/outbox/**/*.ts', 'src/integrations/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/reference-services', '**/reference-services/**'],
              message:
                'card-issues, outbox and integrations reach the reference services over HTTP only.',
            },
          ],
        },
      ],
    },
  },
];
