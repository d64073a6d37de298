// PLACEHOLDER: replaced by the owning work item. Kept so the CLI dispatcher typechecks meanwhile.
import type { CommandSpec } from '../args.ts';
import { BookmakerError } from '../../model/errors.ts';

const command: CommandSpec = {
  name: 'record',
  summary: 'record',
  usage: 'bookmaker record',
  options: {},
  async run() {
    throw new BookmakerError('CONFIG', "'record' is not built yet");
  },
};
export default command;
