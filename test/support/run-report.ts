/** The run report's input for a run that stopped cleanly on SIGTERM after one second, with no market; spread and override. */
import type { RunReportInput } from '../../src/runtime/run-report.ts';

export const STOPPED_RUN: RunReportInput = {
  startedAt: 0,
  stoppedAt: 1_000,
  paper: false,
  stopReason: 'SIGTERM',
  exitCode: 0,
  process: 'stopped',
  haltedBecause: null,
  markets: [],
};
