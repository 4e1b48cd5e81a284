/**
 * The README's "Install in VS Code" link for the npm package: VS Code's https install page (GitHub drops `vscode:`
 * links), VS Code asking for the archive as it installs. `test/mcp/client-configs.test.ts` keeps the README's copy equal.
 */
import { entry, type Launch } from '../../src/mcp/client-configs';

const INPUT_ID = 'msgbrowse-archive';

export const NPX_LAUNCH: Launch = {
  transport: 'stdio',
  command: 'npx',
  args: ['-y', 'msgbrowse-mcp', '--archive', `\${input:${INPUT_ID}}`],
};

const INPUTS = [
  {
    type: 'promptString',
    id: INPUT_ID,
    description: 'Your msgbrowse data folder, the one holding msgbrowse.sqlite, or the file itself',
  },
];

export function readmeInstallLink(): string {
  const config = encodeURIComponent(JSON.stringify(entry(NPX_LAUNCH, true)));
  const inputs = encodeURIComponent(JSON.stringify(INPUTS));
  return `https://vscode.dev/redirect/mcp/install?name=msgbrowse&config=${config}&inputs=${inputs}`;
}
