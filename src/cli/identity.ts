/** Who the CLI is: its command name (the prefix of every stderr line), version and the extension's URI authority. */
import pkg from '../../package.json';

export const NAME = 'msgbrowse-mcp';
export const VERSION: string = pkg.version;
/** The authority of the citation links the CLI prints. */
export const AUTHORITY = `${pkg.publisher}.${pkg.name}`;
