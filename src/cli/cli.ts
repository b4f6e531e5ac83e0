// What every command-line tool shares: `--help`, one-line errors and their exit codes
// (2: misuse, 1: the work failed), never a stack trace.
import { DomainError } from '../common/errors.ts';
import { ConfigError } from '../config.ts';
import { DatabaseInUseError } from '../db/database.ts';

/** The command line was wrong: reported in one line, exit code 2. */
export class UsageError extends Error {}

export async function runCli(
  command: string,
  usage: string,
  main: (args: string[]) => Promise<void>,
): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    return;
  }
  try {
    await main(args);
  } catch (error) {
    // node:util's parseArgs refuses unknown options and missing values with these codes.
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (error instanceof UsageError || code.startsWith('ERR_PARSE_ARGS')) {
      // parseArgs adds advice about `--` after its first sentence; the usage is the better advice here.
      const message = (error as Error).message.split('. ')[0];
      console.error(`${command}: ${message} (${command} --help shows the usage)`);
      process.exit(2);
    }
    const known =
      error instanceof ConfigError || error instanceof DomainError || error instanceof DatabaseInUseError;
    const message = (error as Error).message?.split('\n')[0] ?? String(error);
    console.error(known ? message : `${command} failed: ${message}`);
    process.exit(1);
  }
}
