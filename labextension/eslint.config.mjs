// ESLint flat config: typescript-eslint recommended + the JupyterLab template's house rules,
// plus test plan F2 as lint rules (no API that parses strings as markup or code).
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const MARKUP =
  'Payload text is untrusted: build DOM with createElementNS/textContent (test plan F2).';

export default tseslint.config(
  {
    ignores: ['lib/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.mjs']
  },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: { regex: '^I[A-Z]', match: true }
        }
      ],
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      curly: ['error', 'all'],
      eqeqeq: 'error',
      'prefer-arrow-callback': 'error',
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^(innerHTML|outerHTML)$/]',
          message: MARKUP
        },
        {
          selector:
            'CallExpression[callee.property.name=/^(insertAdjacentHTML|createContextualFragment|write|writeln)$/]',
          message: MARKUP
        },
        { selector: "NewExpression[callee.name='DOMParser']", message: MARKUP },
        {
          selector: "Identifier[name='dangerouslySetInnerHTML']",
          message: MARKUP
        }
      ]
    }
  },
  {
    files: ['src/__tests__/**/*.ts'],
    rules: {
      'no-restricted-syntax': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off'
    }
  }
);
