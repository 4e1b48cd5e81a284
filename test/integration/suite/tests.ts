/**
 * The end-to-end checks, registered after mocha's pre-require (see index.ts), one file per feature. Order matters:
 * the agent suite runs first (nothing has started our server yet); later suites change the served archive (settings, discovery, the demo, a replaced file), so they run in this order.
 */
import { loadManifest } from './env';
import { defineAgent } from './agent';
import { defineActivation } from './activation';
import { defineTools } from './tools';
import { defineDisclosures } from './disclosures';
import { definePrivacy } from './privacy';
import { defineViewerCitations } from './viewer-citations';
import { defineJournal } from './journal';
import { defineMcpSurface } from './mcp-surface';
import { defineSearchApi } from './search-api';
import { defineEditorLinks } from './editor-links';
import { defineCitationCheck } from './citation-check';
import { defineTransport } from './transport';
import { defineArchiveSelection } from './archive-selection';
import { defineViewerPaging } from './viewer-paging';
import { defineCitationReimport } from './citation-reimport';
import { defineLiveArchive } from './live-archive';
import { defineSelectArchive } from './select-archive';
import { defineCompatibility } from './compatibility';
import { defineShowcase } from './showcase';
import { defineCopilotHarness } from './copilot-harness';

export function defineSuites(): void {
  const m = loadManifest();
  describe('msgbrowse in a real VS Code extension host', function () {
    this.timeout(90_000);
    defineAgent(m); // first: it also checks that VS Code starts our server on demand
    defineActivation(m);
    defineCopilotHarness(m);
    defineTools(m);
    defineDisclosures(m);
    definePrivacy(m);
    defineViewerCitations(m);
    defineJournal(m);
    defineSearchApi(m);
    defineEditorLinks(m);
    defineCitationCheck(m);
    defineTransport(m);
    defineArchiveSelection(m);
    defineViewerPaging(m);
    defineCitationReimport(m);
    defineLiveArchive(m);
    defineMcpSurface(m);
    defineSelectArchive(m);
    defineCompatibility(m);
    defineShowcase(m);
  });
}
