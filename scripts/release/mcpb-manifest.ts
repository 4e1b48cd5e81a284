/**
 * The MCP Bundle's manifest (0.4): the host's Node runs `server/cli.js`; the person's choices reach the CLI as its
 * environment. Every optional setting has a default, so no `${user_config.…}` is ever left unreplaced by a host.
 */
import { TOOLS } from '../../src/mcp/tools';
import { CLI_DESCRIPTION, CLI_NAME, type PackageInfo, repoUrl } from './package-info';

/** `${name}`: a variable the bundle host replaces (its directory, the person's settings). */
const hostVar = (name: string) => `\${${name}}`;

/** A tool's first sentence: the manifest lists tools for people browsing bundles. */
const firstSentence = (s: string) => /^.*?[.!?](?=\s|$)/.exec(s)?.[0] ?? s;

export function bundleManifest(pkg: PackageInfo) {
  const repo = repoUrl(pkg);
  return {
    manifest_version: '0.4',
    name: CLI_NAME,
    display_name: 'msgbrowse',
    version: pkg.version,
    description: CLI_DESCRIPTION,
    long_description:
      'Gives the model search (keyword and semantic), reading and exact citations over the messages msgbrowse imported ' +
      'from Signal, iMessage and WhatsApp. The archive is opened read-only; nothing leaves your machine except to the ' +
      'embeddings endpoint you configure. Conversations you list are hidden and secrets are redacted before the model ' +
      'sees anything.',
    author: { name: 'msgbrowse for VS Code contributors', url: repo },
    repository: { type: 'git', url: repo },
    homepage: pkg.homepage,
    documentation: `${repo}/blob/main/docs/CLI.md`,
    support: pkg.bugs.url,
    license: pkg.license,
    keywords: pkg.keywords,
    icon: 'icon.png',
    icons: [{ src: 'icon.png', size: '128x128' }],
    server: {
      type: 'node',
      entry_point: 'server/cli.js',
      mcp_config: {
        command: 'node',
        args: [`${hostVar('__dirname')}/server/cli.js`],
        env: {
          MSGBROWSE_DATA_DIR: hostVar('user_config.data_dir'),
          MSGBROWSE_LLM_BASE_URL: hostVar('user_config.embeddings_url'),
          MSGBROWSE_LLM_EMBED_MODEL: hostVar('user_config.embeddings_model'),
          MSGBROWSE_LLM_API_KEY: hostVar('user_config.embeddings_api_key'),
          MSGBROWSE_EXCLUDE_FILE: hostVar('user_config.excluded_conversations'),
          MSGBROWSE_REDACT: hostVar('user_config.redact'),
        },
      },
    },
    tools: TOOLS.map((t) => ({ name: t.name, description: firstSentence(t.description) })),
    compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: pkg.engines.node } },
    user_config: {
      data_dir: {
        type: 'directory',
        title: 'msgbrowse data folder',
        description: "The folder holding msgbrowse.sqlite (msgbrowse's data_dir). It is only read, never written.",
        required: true,
      },
      embeddings_url: {
        type: 'string',
        title: 'Embeddings endpoint',
        description: 'The OpenAI-compatible /v1 endpoint msgbrowse made its embeddings with (semantic search asks it).',
        default: 'http://127.0.0.1:4000/v1',
      },
      embeddings_model: {
        type: 'string',
        title: 'Embedding model',
        description: "msgbrowse's embedding model; leave empty for keyword search only.",
        default: 'local-embed',
      },
      embeddings_api_key: {
        type: 'string',
        title: 'Embeddings API key',
        description: 'Only if the endpoint needs one.',
        sensitive: true,
        default: '',
      },
      excluded_conversations: {
        type: 'file',
        title: 'Conversations to hide',
        description:
          'A text file with one conversation name (or source:name) per line: they never reach the model. If the file cannot be read, the server does not start.',
        default: '',
      },
      redact: {
        type: 'boolean',
        title: 'Redact secrets',
        description: 'One-time codes, card numbers, IBANs, passwords and API keys reach the model as [redacted: …].',
        default: true,
      },
    },
  };
}
