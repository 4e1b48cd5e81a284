/** What the status bar tooltip and Show Server Status say about privacy (`msgbrowse.privacy.*` and the ledger). */

export interface PrivacyInfo {
  /** Conversations excluded from everything served to a model, as configured. */
  exclusions: string[];
  redact: boolean;
  ledgerFile: string;
}

const NAMES_SHOWN = 5;

export function exclusionsLine(exclusions: readonly string[]): string {
  if (exclusions.length === 0) return 'Excluded conversations: none';
  const shown = exclusions
    .slice(0, NAMES_SHOWN)
    .map((n) => `"${n}"`)
    .join(', ');
  const more = exclusions.length > NAMES_SHOWN ? `, and ${exclusions.length - NAMES_SHOWN} more` : '';
  return `Excluded conversations: ${exclusions.length} (${shown}${more})`;
}

export function redactionLine(redact: boolean): string {
  return redact
    ? 'Redaction: on (secrets in messages are masked before a model sees them)'
    : 'Redaction: off (messages are served as archived)';
}

export function ledgerLine(ledgerFile: string): string {
  return `What Copilot has seen is recorded in ${ledgerFile}`;
}

export function privacyLines(p: PrivacyInfo): string[] {
  return [exclusionsLine(p.exclusions), redactionLine(p.redact), ledgerLine(p.ledgerFile)];
}
