/** The root package.json fields every artifact is described from (one version, one repository, one registry name). */
import { z } from 'zod';

export const PackageInfo = z.object({
  name: z.string(),
  version: z.string(),
  description: z.string(),
  license: z.string(),
  repository: z.object({ url: z.string() }),
  homepage: z.string().url(),
  bugs: z.object({ url: z.string().url() }),
  mcpName: z.string(),
  keywords: z.array(z.string()),
  engines: z.object({ node: z.string() }),
});
export type PackageInfo = z.infer<typeof PackageInfo>;

/** https://github.com/owner/repo, from package.json's git URL. */
export function repoUrl(pkg: PackageInfo): string {
  return pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
}

export const CLI_NAME = 'msgbrowse-mcp';
export const CLI_DESCRIPTION =
  'Search, read and cite your Signal, iMessage and WhatsApp messages (a msgbrowse archive): read-only, local.';
