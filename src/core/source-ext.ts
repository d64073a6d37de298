/**
 * How this copy of bookmaker runs: from its TypeScript sources (tsx, a checkout) or from the build
 * (`npm run build` → dist/, the installed package and the Docker image). Code that names one of its own
 * files at run time (a worker, a child process, a built-in strategy) picks the extension from here.
 */
export const SOURCE_EXT: '.ts' | '.js' = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** True when running the compiled JavaScript (no TypeScript loader registered by bookmaker itself). */
export const COMPILED = SOURCE_EXT === '.js';
