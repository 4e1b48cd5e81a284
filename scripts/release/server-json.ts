/**
 * The MCP Registry entry (server.json, schema 2025-12-11) for the npm package: the registry has no VSIX type, so the
 * CLI is what gets registered. `ServerJson` holds the registry's rules for the fields we write (name shape, a
 * description of at most 100 characters, exact versions, a transport per package), checked before it is written.
 */
import { z } from 'zod';
import { CLI_NAME, type PackageInfo, repoUrl } from './package-info';

export const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

const exactVersion = z
  .string()
  .min(1)
  .refine((v) => v !== 'latest' && !/[\^~<>=*x]|\|\|/.test(v.replace(/-.*$/, '')), 'an exact version, never a range');

const Input = z.object({
  description: z.string().min(1),
  isRequired: z.boolean().optional(),
  format: z.enum(['string', 'number', 'boolean', 'filepath']).optional(),
  isSecret: z.boolean().optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
});

export const ServerJson = z.strictObject({
  $schema: z.literal(SERVER_SCHEMA),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  description: z.string().min(1).max(100),
  version: exactVersion,
  repository: z.strictObject({ url: z.string().url(), source: z.literal('github') }),
  websiteUrl: z.string().url(),
  packages: z.array(
    z.strictObject({
      registryType: z.literal('npm'),
      registryBaseUrl: z.literal('https://registry.npmjs.org'),
      identifier: z.string().min(1),
      version: exactVersion,
      runtimeHint: z.literal('npx'),
      transport: z.strictObject({ type: z.literal('stdio') }),
      packageArguments: z.array(Input.extend({ type: z.literal('named'), name: z.string().startsWith('--') })),
      environmentVariables: z.array(Input.extend({ name: z.string().regex(/^[A-Z][A-Z0-9_]*$/) })),
    }),
  ),
});
export type ServerJson = z.infer<typeof ServerJson>;

export function serverJson(pkg: PackageInfo): ServerJson {
  return ServerJson.parse({
    $schema: SERVER_SCHEMA,
    name: pkg.mcpName,
    description: 'Search, read and cite your Signal, iMessage and WhatsApp messages from a msgbrowse archive',
    version: pkg.version,
    repository: { url: repoUrl(pkg), source: 'github' },
    websiteUrl: pkg.homepage,
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: CLI_NAME,
        version: pkg.version,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        packageArguments: [
          {
            type: 'named',
            name: '--archive',
            description: 'msgbrowse.sqlite or its data folder (default: $MSGBROWSE_DATA_DIR/msgbrowse.sqlite)',
            format: 'filepath',
            isRequired: false,
          },
          {
            type: 'named',
            name: '--link-scheme',
            description: 'URI scheme of citation links: vscode (default), vscode-insiders, cursor…',
            default: 'vscode',
          },
        ],
        environmentVariables: [
          { name: 'MSGBROWSE_DATA_DIR', description: 'The data folder holding msgbrowse.sqlite', format: 'filepath' },
          {
            name: 'MSGBROWSE_LLM_BASE_URL',
            description: 'OpenAI-compatible embeddings endpoint for semantic search',
            default: 'http://127.0.0.1:4000/v1',
          },
          {
            name: 'MSGBROWSE_LLM_EMBED_MODEL',
            description: 'Embedding model; empty: keyword search only',
            default: 'local-embed',
          },
          {
            name: 'MSGBROWSE_LLM_API_KEY',
            description: 'Embeddings API key, if the endpoint needs one',
            isSecret: true,
          },
          {
            name: 'MSGBROWSE_LLM_TIMEOUT',
            description: 'Embeddings request timeout: a Go duration (30s, 1m30s) or seconds',
            default: '60s',
          },
          {
            name: 'MSGBROWSE_EXCLUDE_CONVERSATIONS',
            description: 'Conversations to hide from the model, one name (or source:name) per line',
          },
          {
            name: 'MSGBROWSE_EXCLUDE_FILE',
            description: 'Text file of conversations to hide from the model, one name (or source:name) per line',
            format: 'filepath',
          },
          {
            name: 'MSGBROWSE_REDACT',
            description: 'Redact one-time codes, card numbers, IBANs, passwords and API keys',
            format: 'boolean',
            default: 'true',
          },
          {
            name: 'MSGBROWSE_MAX_RESULT_BYTES',
            description: 'Bytes of structuredContent an answer may take before it pages',
            format: 'number',
            default: '8192',
          },
          {
            name: 'MSGBROWSE_MCP_LOG',
            description: 'Log level on stderr: debug, info, warn or error',
            default: 'info',
          },
        ],
      },
    ],
  });
}
