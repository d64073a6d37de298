// PLACEHOLDER: replaced by the owning work item. Kept so the CLI dispatcher typechecks meanwhile.
import type { CommandSpec } from '../args.ts';
import { BookmakerError } from '../../model/errors.ts';

const command: CommandSpec = {
  name: 'markets',
  summary: 'markets',
  usage: 'bookmaker markets',
  options: {},
  async run() {
    throw new BookmakerError('CONFIG', "'markets' is not built yet");
  },
};
export default command;
