/** Offers msgbrowse's `journal.exclude_conversations` as `msgbrowse.privacy.excludeConversations`, never silently. */
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import { CONFIG_SECTION } from './constants';
import { defaultDiscoveryEnv } from './discovery';
import { findJournalExcludes, msgbrowseConfigCandidates } from './msgbrowse-config';
import { readSettings } from './settings';

const DISMISSED_KEY = 'msgbrowse.journalExcludesDismissed';

export async function offerJournalExcludes(ext: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const found = findJournalExcludes(msgbrowseConfigCandidates(defaultDiscoveryEnv(folders)));
  if (!found || found.names.length === 0) return;
  const current = new Set(readSettings().excludeConversations);
  const missing = found.names.filter((n) => !current.has(n));
  if (missing.length === 0) return;
  // "Don't Ask Again" holds for this exact list: a changed list is offered again.
  const stamp = createHash('sha256')
    .update(JSON.stringify([found.file, ...missing]))
    .digest('hex');
  if (ext.globalState.get<string>(DISMISSED_KEY) === stamp) return;
  log.info(
    `msgbrowse config ${found.file} excludes ${found.names.length} conversation(s) from its journal; offering to hide them from Copilot`,
  );
  const hide = 'Hide from Copilot';
  const show = 'Show Names';
  const never = "Don't Ask Again";
  const choice = await vscode.window.showInformationMessage(
    `msgbrowse: your msgbrowse config (${found.file}) leaves ${missing.length} conversation${missing.length === 1 ? '' : 's'} out of its journal. Hide ${missing.length === 1 ? 'it' : 'them'} from Copilot too (msgbrowse.privacy.excludeConversations)?`,
    hide,
    show,
    never,
  );
  if (choice === show) {
    const picked = await vscode.window.showQuickPick(
      missing.map((n) => ({ label: n, picked: true })),
      {
        canPickMany: true,
        title: 'msgbrowse: conversations to hide from Copilot',
        placeHolder: 'From journal.exclude_conversations; unpick any to keep visible',
      },
    );
    const names = picked?.map((p) => p.label) ?? [];
    if (names.length) await apply(names, current);
  } else if (choice === hide) await apply(missing, current);
  else if (choice === never) await ext.globalState.update(DISMISSED_KEY, stamp);
}

async function apply(names: string[], current: Set<string>): Promise<void> {
  const next = [...current, ...names.filter((n) => !current.has(n))];
  await vscode.workspace
    .getConfiguration(CONFIG_SECTION)
    .update('privacy.excludeConversations', next, vscode.ConfigurationTarget.Global);
  void vscode.window.showInformationMessage(
    `msgbrowse: ${names.length} conversation${names.length === 1 ? ' is' : 's are'} now hidden from Copilot.`,
  );
}
