/** The files of the test runner (scripts/test.mjs and what it starts), copied into the tests' tiny temp projects. */
export const RUNNER_FILES = [
  'scripts/test.mjs',
  'scripts/test-lanes.mjs',
  'scripts/ts-loader.mjs',
  'scripts/ts-loader-hooks.mjs',
  'scripts/test-group.mjs',
  'scripts/test-group-reporter.mjs',
  'bin/newest-mtime.js',
];
