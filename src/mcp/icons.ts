/**
 * The MCP icons of the server (serverInfo), every tool, the prompts and the resource templates: 32×32 PNGs in a
 * light-theme variant (a dark glyph) and a dark-theme variant (a light one), as `data:` URIs — VS Code ignores SVG
 * icons and, over our Unix socket, can load only `data:` URIs. The pixels come from icon-data.ts, which
 * scripts/gen-icons.mjs generates (with media/icons/*.png, the same bytes, to look at).
 */
import type { Icon as SdkIcon } from '@modelcontextprotocol/sdk/types.js';
import { ICON_PNG_BASE64, ICON_SIZE, type IconName } from './icon-data';

/** One MCP icon, as we build them: a PNG `data:` URI for one theme. Assignable to the SDK's `Icon`. */
export interface Icon {
  src: string;
  mimeType: 'image/png';
  sizes: string[];
  theme: 'light' | 'dark';
}

/** The icons that are not a tool's. */
const NOT_TOOLS: ReadonlySet<IconName> = new Set<IconName>(['server', 'prompt', 'resource']);

/** The light and the dark icon of `name` (frozen: the same objects go into every list result). */
function iconsOf(name: IconName): Icon[] {
  const data = ICON_PNG_BASE64[name];
  const icons = (['light', 'dark'] as const).map(
    (theme): Icon =>
      Object.freeze({
        src: `data:image/png;base64,${data[theme]}`,
        mimeType: 'image/png',
        sizes: Object.freeze([`${ICON_SIZE}x${ICON_SIZE}`]) as string[],
        theme,
      }),
  ) satisfies SdkIcon[];
  return Object.freeze(icons) as Icon[];
}

/** The server's icons (serverInfo.icons): the msgbrowse mark, a white speech bubble on a blue tile. */
export const SERVER_ICONS: Icon[] = iconsOf('server');

/** The icons of every prompt (two sparkles). */
export const PROMPT_ICONS: Icon[] = iconsOf('prompt');

/** The icons of every resource and resource template (a page of text). */
export const RESOURCE_ICONS: Icon[] = iconsOf('resource');

const TOOL_ICONS: ReadonlyMap<string, Icon[]> = new Map(
  (Object.keys(ICON_PNG_BASE64) as IconName[]).filter((n) => !NOT_TOOLS.has(n)).map((n) => [n, iconsOf(n)]),
);

/** The names of the tools that have icons (every tool msgbrowse registers). */
export const TOOL_ICON_NAMES: readonly string[] = Object.freeze([...TOOL_ICONS.keys()]);

/**
 * The icons of the tool called `name`. Throws for a name without icons rather than falling back to a generic one: a
 * new tool must get its own glyph (scripts/gen-icons.mjs), and every tools/list in the tests then fails until it does.
 */
export function toolIcons(name: string): Icon[] {
  const icons = TOOL_ICONS.get(name);
  if (!icons) throw new Error(`no MCP icons for tool "${name}": draw one in scripts/gen-icons.mjs and rerun it`);
  return icons;
}
