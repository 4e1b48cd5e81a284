import { cleanBody, type DisclosedMessage, type DisclosureEntry } from '../core';

const SNIPPET_MAX = 60;

/** A call's row: the tool (or resource) and what it was asked. */
export function callLabel(e: DisclosureEntry): string {
  const args = e.arguments && typeof e.arguments === 'object' ? (e.arguments as Record<string, unknown>) : {};
  const what = e.kind === 'resource' ? String(args.uri ?? '') : summarizeArguments(args);
  return `${e.kind === 'resource' ? 'read' : e.name}${what ? ` ${what}` : ''}`;
}

function summarizeArguments(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? JSON.stringify(oneLine(v, 40)) : oneLine(JSON.stringify(v), 40)}`)
    .join(', ');
}

/** When, how many messages, which client; a failure says so. */
export function callDescription(e: DisclosureEntry, now = new Date()): string {
  const t = new Date(e.time);
  const today = t.toDateString() === now.toDateString();
  const when = Number.isNaN(t.getTime()) ? e.time : today ? t.toLocaleTimeString() : t.toLocaleString();
  const n = e.messages.length;
  const status = e.ok ? `${n} message${n === 1 ? '' : 's'}` : 'failed';
  return [when, status, e.client?.name].filter(Boolean).join(' · ');
}

export function callTooltip(e: DisclosureEntry): string {
  const client = e.client ? `${e.client.name}${e.client.version ? ` ${e.client.version}` : ''}` : 'unknown client';
  return [
    `${e.kind === 'resource' ? 'Resource read' : 'Tool call'} ${e.name} by ${client} at ${e.time}`,
    `Arguments: ${JSON.stringify(e.arguments)}`,
    e.ok ? `Returned ${e.messages.length} message(s)` : `Failed: ${e.error ?? 'unknown error'}`,
  ].join('\n');
}

/** What a message row shows once looked up in the archive (by hash); undefined = no longer in it. */
interface LedgerMessageView {
  sender: string;
  conversation: string;
  body: string;
}

/** `sender · conversation · snippet`, or a plain note when the message is no longer in the archive. */
export function messageLabel(m: DisclosedMessage, found: LedgerMessageView | undefined): string {
  if (!found) return `(no longer in the archive) ${m.hash.slice(0, 16)}…`;
  return `${oneLine(found.sender, 30)} · ${oneLine(found.conversation, 30)} · ${oneLine(found.body, SNIPPET_MAX) || '(no text)'}`;
}

function oneLine(s: string, max: number): string {
  const one = cleanBody(s).replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
