// PLACEHOLDER: replaced by the owning work item. Kept so the CLI dispatcher typechecks meanwhile.
import type { CommandSpec } from '../args.ts';
import { BookmakerError } from '../../model/errors.ts';

const command: CommandSpec = {
  name: 'sim',
  summary: 'sim',
  usage: 'bookmaker sim',
  options: {},
  async run() {
    throw new BookmakerError('CONFIG', "'sim' is not built yet");
  },
};
export default command;
