import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  OpenAIEmbedder,
  EmbedError,
  embedConfigFromEnv,
  parseGoDuration,
  truncateChars,
  modelAvailabilityProblem,
  NO_EMBED_MODEL_REASON,
  dimensionMismatchError,
} from '../../src/embed';
import { startEmbedServer, type TestEmbedServer } from './test-server';

let srv: TestEmbedServer;
before(async () => {
  srv = await startEmbedServer();
});
after(async () => {
  await srv.close();
});

async function rejects(p: Promise<unknown>, code: string, re: RegExp): Promise<EmbedError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof EmbedError, `expected EmbedError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    return e;
  }
  assert.fail('expected a rejection');
}

test('config from env: msgbrowse keys and defaults', () => {
  assert.deepEqual(embedConfigFromEnv({}), {
    baseUrl: 'http://127.0.0.1:4000/v1',
    model: 'local-embed',
    apiKey: undefined,
    timeoutMs: 60_000,
  });
  const c = embedConfigFromEnv({
    MSGBROWSE_LLM_BASE_URL: 'http://h:1/v1///',
    MSGBROWSE_LLM_EMBED_MODEL: '  nomic  ',
    MSGBROWSE_LLM_API_KEY: 'sk-1',
    MSGBROWSE_LLM_TIMEOUT: '1m30s',
  });
  assert.deepEqual(c, { baseUrl: 'http://h:1/v1', model: 'nomic', apiKey: 'sk-1', timeoutMs: 90_000 });
  assert.equal(embedConfigFromEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }).model, '');
  assert.equal(embedConfigFromEnv({ MSGBROWSE_LLM_EMBED_MODEL: '   ' }).model, '');
  assert.equal(embedConfigFromEnv({ MSGBROWSE_LLM_API_KEY: '' }).apiKey, undefined);
  assert.equal(embedConfigFromEnv({ MSGBROWSE_LLM_TIMEOUT: '-5s' }).timeoutMs, 60_000);
});

test('parseGoDuration', () => {
  assert.equal(parseGoDuration('60s'), 60_000);
  assert.equal(parseGoDuration('1500ms'), 1500);
  assert.equal(parseGoDuration('2h'), 7_200_000);
  assert.equal(parseGoDuration('10'), 10_000);
  assert.equal(parseGoDuration('0s'), undefined);
  assert.equal(parseGoDuration('abc'), undefined);
  assert.equal(parseGoDuration('5x'), undefined);
  assert.equal(parseGoDuration(''), undefined);
});

test('truncateChars counts code points and never splits a surrogate pair', () => {
  assert.equal(truncateChars('abc', 5), 'abc');
  assert.equal(truncateChars('abcdef', 3), 'abc');
  assert.equal(truncateChars('😀😀😀', 2), '😀😀');
  assert.equal(truncateChars('a😀b', 2), 'a😀');
  assert.equal(truncateChars('é'.repeat(10), 4), 'éééé');
  assert.equal(truncateChars('x', 0), '');
});

test('POSTs {model, input:[query]} to {base}/embeddings with a bearer key; returns the vector', async () => {
  srv.requests.length = 0;
  const e = new OpenAIEmbedder({ baseUrl: `${srv.baseUrl}/`, model: ' test-embed ', apiKey: 'sk-test' });
  assert.equal(e.model, 'test-embed');
  const v = await e.embed('rental contract');
  assert.deepEqual([...v], [1, 0]);
  assert.equal(srv.requests.length, 1);
  const r = srv.requests[0];
  assert.equal(r.method, 'POST');
  assert.equal(r.url, '/v1/embeddings');
  assert.equal(r.headers.authorization, 'Bearer sk-test');
  assert.match(String(r.headers['content-type']), /application\/json/);
  assert.deepEqual(JSON.parse(r.body), { model: 'test-embed', input: ['rental contract'] });
});

test('no Authorization header without a key; long queries cut by characters', async () => {
  srv.requests.length = 0;
  const e = new OpenAIEmbedder({ baseUrl: srv.baseUrl, model: 'm' });
  await e.embed(`ab${'😀'.repeat(7000)}`);
  assert.equal(srv.requests[0].headers.authorization, undefined);
  assert.deepEqual(JSON.parse(srv.requests[0].body).input, [`ab${'😀'.repeat(6498)}`]);
  await e.embed('ü'.repeat(100_000));
  assert.equal(JSON.parse(srv.requests[1].body).input[0].length, 6500);
});

test('empty model is refused at construction with the how-to-enable message', () => {
  assert.throws(
    () => new OpenAIEmbedder({ baseUrl: srv.baseUrl, model: '' }),
    (e: unknown) =>
      e instanceof EmbedError && e.code === 'not_configured' && e.message.includes('MSGBROWSE_LLM_EMBED_MODEL'),
  );
  assert.throws(() => new OpenAIEmbedder({ baseUrl: 'not a url', model: 'm' }), /not a valid URL/);
  assert.throws(() => new OpenAIEmbedder({ baseUrl: 'file:///tmp', model: 'm' }), /http\(s\)/);
});

test('unreachable endpoint names the URL and how to configure it', async () => {
  // Reserve a port, then close it so nothing listens there.
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  const e = new OpenAIEmbedder({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' });
  const err = await rejects(e.embed('x'), 'unreachable', /cannot reach the embeddings endpoint/);
  assert.ok(err.message.includes(`http://127.0.0.1:${port}/v1/embeddings`));
  assert.match(err.message, /MSGBROWSE_LLM_BASE_URL/);
});

test('HTTP errors carry the status and at most 300 characters of the body', async () => {
  srv.respond = () => ({ status: 500, body: 'x'.repeat(2000), raw: true });
  const e = new OpenAIEmbedder({ baseUrl: srv.baseUrl, model: 'm' });
  const err = await rejects(e.embed('q'), 'http', /HTTP 500: x+…$/);
  assert.equal(err.status, 500);
  assert.ok(err.message.length < 600);
  srv.respond = () => ({ status: 401, body: { error: 'bad key' } });
  await rejects(e.embed('q'), 'http', /HTTP 401.*MSGBROWSE_LLM_API_KEY/);
});

test('a model the endpoint does not serve gives a wrong-model error', async () => {
  srv.respond = () => ({ status: 400, body: { error: { message: 'Invalid model name passed in model=nope' } } });
  const e = new OpenAIEmbedder({ baseUrl: srv.baseUrl, model: 'nope' });
  await rejects(e.embed('q'), 'model_rejected', /rejected model "nope" \(HTTP 400: .*MSGBROWSE_LLM_EMBED_MODEL/);
});

test('malformed responses are rejected clearly', async () => {
  const e = new OpenAIEmbedder({ baseUrl: srv.baseUrl, model: 'm' });
  srv.respond = () => ({ body: 'not json', raw: true });
  await rejects(e.embed('q'), 'bad_response', /did not return JSON/);
  srv.respond = () => ({ body: { data: [] } });
  await rejects(e.embed('q'), 'bad_response', /returned 0 embeddings for 1 input/);
  srv.respond = () => ({
    body: {
      data: [
        { embedding: [1], index: 0 },
        { embedding: [2], index: 1 },
      ],
    },
  });
  await rejects(e.embed('q'), 'bad_response', /returned 2 embeddings/);
  srv.respond = () => ({ body: { data: [{ embedding: [], index: 0 }] } });
  await rejects(e.embed('q'), 'bad_response', /empty embedding/);
  srv.respond = () => ({ body: { data: [{ embedding: ['a', 1], index: 0 }] } });
  await rejects(e.embed('q'), 'bad_response', /unexpected response \(data\.0\.embedding\.0/);
  srv.respond = () => ({ body: { data: [{ embedding: [1], index: 3 }] } });
  await rejects(e.embed('q'), 'bad_response', /index 3/);
  srv.respond = () => ({ body: { error: 'x' } });
  await rejects(e.embed('q'), 'bad_response', /returned 0 embeddings/);
});

test('timeout and caller cancellation are distinguished', async () => {
  srv.respond = () => ({ body: { data: [{ embedding: [1, 0], index: 0 }] }, delayMs: 2000 });
  const slow = new OpenAIEmbedder({ baseUrl: srv.baseUrl, model: 'm', timeoutMs: 100 });
  await rejects(slow.embed('q'), 'timeout', /did not answer within 0\.1s/);
  const e = new OpenAIEmbedder({ baseUrl: srv.baseUrl, model: 'm' });
  const ac = new AbortController();
  const p = e.embed('q', ac.signal);
  setTimeout(() => ac.abort(), 50);
  await rejects(p, 'aborted', /cancelled/);
  const pre = new AbortController();
  pre.abort();
  await rejects(e.embed('q', pre.signal), 'aborted', /cancelled/);
});

test('modelAvailabilityProblem and dimensionMismatchError messages', () => {
  assert.equal(modelAvailabilityProblem('', []), NO_EMBED_MODEL_REASON);
  assert.equal(modelAvailabilityProblem('a', [{ model: 'a', count: 3, dim: 2 }]), undefined);
  assert.match(modelAvailabilityProblem('a', []) ?? '', /no message embeddings yet/);
  assert.match(
    modelAvailabilityProblem('a', [{ model: 'b', count: 3, dim: 2 }]) ?? '',
    /no embeddings for model "a"; it has "b" \(3 vectors, dim 2\)/,
  );
  const d = dimensionMismatchError('m', 3, 2);
  assert.equal(d.code, 'dimension_mismatch');
  assert.match(d.message, /3-dimensional.*2-dimensional/);
});
