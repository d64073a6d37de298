// PLACEHOLDER: replaced by the owning work item. Kept so the CLI dispatcher typechecks meanwhile.
import type { CommandSpec } from '../args.ts';
import { BookmakerError } from '../../model/errors.ts';

const command: CommandSpec = {
  name: 'import',
  summary: 'import',
  usage: 'bookmaker import',
  options: {},
  async run() {
    throw new BookmakerError('CONFIG', "'import' is not built yet");
  },
};
export default command;
