/** list_links: links by domain, one entry per URL. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { CuratedArchive } from '../../fixtures/index';
import type { Harness } from '../harness';
import { toolFixture } from './tool-fixture';

let desc: CuratedArchive;
let h: Harness;
toolFixture((fx) => ({ desc, h } = fx));

describe('list_links', () => {
  test('domain is case-insensitive, ignores www., includes subdomains; one entry per URL with count', async () => {
    const yelp = await h.ok<{ links: { url: string; domain: string }[] }>('list_links', { domain: 'WWW.YELP.COM' });
    assert.ok(yelp.links.length >= 1 && yelp.links.every((l) => l.domain === 'yelp.com'));
    const ex = await h.ok<{ links: { url: string; domain: string; count: number }[] }>('list_links', {
      domain: 'example.com',
    });
    assert.ok(ex.links.some((l) => l.domain === 'maps.example.com'));
    assert.ok(ex.links.every((l) => l.domain === 'example.com' || l.domain.endsWith('.example.com')));
    const urls = ex.links.map((l) => l.url);
    assert.equal(new Set(urls).size, urls.length);
    const harper = await h.ok<{ links: { url: string; count: number; message_id: number }[] }>('list_links', {
      conversation: 'Harper',
    });
    const maps = harper.links.find((l) => l.url === 'https://maps.example.com/a')!;
    assert.equal(maps.count, 2);
    assert.equal(maps.message_id, desc.marks.linkMapsFirst.id);
    assert.match(await h.err('list_links', { domain: 'not a domain' }), /not a valid domain/);
    const empty = await h.ok<{ links: unknown[] }>('list_links', { domain: 'nothing.invalid' });
    assert.deepEqual(empty.links, []);
  });
});
