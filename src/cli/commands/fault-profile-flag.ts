/** The fault profile flags of `sim --faults` and `chaos --profile`: one vocabulary, old names warned about. */
import { BadInputError } from '../../model/errors.ts';
import {
  DEPRECATED_FAULT_PROFILES,
  FAULT_PROFILE_NAMES,
  FAULT_PROFILE_SUMMARY,
  faultProfileProblem,
  resolveFaultProfile,
  type FaultProfileName,
} from '../../sim/faults.ts';

/**
 * The profile a flag names. A deprecated name is accepted with a warning on stderr naming the new one;
 * anything else exits 2 naming the choices (and the right name where there is one).
 */
export function faultProfileFlag(flag: string, value: string, command: string): FaultProfileName {
  let r: ReturnType<typeof resolveFaultProfile>;
  try {
    r = resolveFaultProfile(value);
  } catch {
    throw new BadInputError(flag, `one of ${FAULT_PROFILE_NAMES.join(', ')} (${faultProfileProblem(value)})`, value);
  }
  if (r.deprecation) process.stderr.write(`${command}: warning: ${flag} ${r.deprecation}\n`);
  return r.name;
}

/** The profile table for --help. */
export function faultProfileHelp(): string {
  const rows = FAULT_PROFILE_NAMES.map((n) => `  ${n.padEnd(9)}${FAULT_PROFILE_SUMMARY[n]}`);
  const old = Object.entries(DEPRECATED_FAULT_PROFILES)
    .map(([o, n]) => `${o} → ${n}`)
    .join(', ');
  return ['Fault profiles (the same names as venue.local.faults in config):', ...rows, `  old names still accepted, with a warning: ${old}`].join('\n');
}
