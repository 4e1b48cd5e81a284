// The MCP icons of the server, tools, prompts and resources: PNG `data:` URIs per theme, as VS Code ignores SVG icons
// and over our Unix socket loads only `data:` URIs. The pixels are icon-data.ts, made by scripts/gen-icons.mjs.
import type { Icon as SdkIcon } from '@modelcontextprotocol/server';
import { ICON_PNG_BASE64, ICON_SIZE, type IconName } from './icon-data';
import { TOOLS } from './tools';

export interface Icon {
  src: string;
  mimeType: 'image/png';
  sizes: string[];
  theme: 'light' | 'dark';
}

const NOT_TOOLS: ReadonlySet<IconName> = new Set<IconName>(['server', 'prompt', 'resource', 'tool']);

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

export const SERVER_ICONS: Icon[] = iconsOf('server');
export const PROMPT_ICONS: Icon[] = iconsOf('prompt');
export const RESOURCE_ICONS: Icon[] = iconsOf('resource');
const DEFAULT_TOOL_ICONS: Icon[] = iconsOf('tool');

const OWN_TOOL_ICONS: ReadonlyMap<string, Icon[]> = new Map(
  (Object.keys(ICON_PNG_BASE64) as IconName[]).filter((n) => !NOT_TOOLS.has(n)).map((n) => [n, iconsOf(n)]),
);

/** Every tool, and every glyph named for a tool: one named for a tool that is gone then shows here (and in tests). */
export const TOOL_ICON_NAMES: readonly string[] = Object.freeze([
  ...new Set([...TOOLS.map((t) => t.name), ...OWN_TOOL_ICONS.keys()]),
]);

/** The icons of the tool called `name`: its own glyph or the default one. */
export function toolIcons(name: string): Icon[] {
  if (!TOOL_ICON_NAMES.includes(name)) throw new Error(`no MCP icons for tool "${name}": there is no such tool`);
  return OWN_TOOL_ICONS.get(name) ?? DEFAULT_TOOL_ICONS;
}
