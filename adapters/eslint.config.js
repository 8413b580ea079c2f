// ESLint for komasync's JavaScript: the GM console and player page, the Foundry module, the
// Ccfolia userscript sources and bundler, the bridges' Node suites and the fake Ccfolia page.
// Run from the repository root (`npm run lint` in adapters/ does that, and scripts/lint.sh
// runs it): with --config the patterns below are relative to the working directory.
import js from "@eslint/js";
import globals from "globals";

// Foundry VTT's globals the module reads (never assigns); declared here so no-undef still
// catches a typo or a Foundry name the module has not used before.
const FOUNDRY = Object.fromEntries(
  ["game", "Hooks", "canvas", "foundry", "ui", "ChatMessage", "CONST"]
    .map((name) => [name, "readonly"]),
);

export default [
  // The userscript is generated from ccfolia/src by ccfolia/build.mjs; lint its sources.
  { ignores: ["adapters/ccfolia/komasync-ccfolia.user.js"] },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  js.configs.recommended,
  {
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
      eqeqeq: ["error", "smart"],
      "no-undef": "error",
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: ["server/console/js/**/*.js", "adapters/ccfolia/src/**/*.js", "tests/bridges/**/*.js"],
    languageOptions: { globals: globals.browser },
  },
  {
    // The shared core also goes into the Ccfolia userscript, so it gets no Foundry globals.
    files: ["adapters/foundry/module/scripts/**/*.js"],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ["adapters/foundry/module/scripts/**/*.js"],
    ignores: ["adapters/foundry/module/scripts/core/**"],
    languageOptions: { globals: FOUNDRY },
  },
  {
    // A userscript manager's stand-in, injected as a classic script (add_init_script).
    files: ["tests/bridges/usermanager.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    files: ["adapters/test/**/*.js", "adapters/test/**/*.mjs", "adapters/ccfolia/build.mjs", "adapters/types/**/*.mjs",
      "adapters/eslint.config.js"],
    languageOptions: { globals: globals.node },
  },
];
