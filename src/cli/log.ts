import type { LogLevel } from '../core';
import { NAME } from './identity';

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

export interface CliLogger {
  (level: LogLevel, message: string): void;
  /** While true, only debug output passes (startup failures are reported once, by the CLI itself). */
  muted: boolean;
}

export function makeLogger(env: NodeJS.ProcessEnv): CliLogger {
  const wanted = (env.MSGBROWSE_MCP_LOG ?? 'info').trim().toLowerCase() as LogLevel;
  const min = Math.max(0, LEVELS.indexOf(wanted));
  const log = ((level: LogLevel, message: string) => {
    if (LEVELS.indexOf(level) < min) return;
    if (log.muted && level !== 'debug') return;
    process.stderr.write(`${NAME}: ${level === 'info' ? '' : `${level}: `}${message}\n`);
  }) as CliLogger;
  log.muted = false;
  return log;
}
