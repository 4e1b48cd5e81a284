/**
 * A generated archive big enough that a broad FTS prefix query takes a noticeable time (cancellation and
 * responsiveness tests of the engine worker), written with the msgbrowse-format fixture writer.
 */
import path from 'node:path';
import { ArchiveWriter, createArchive, formatTs, mulberry32, zipfSampler, type MessageInput } from '../fixtures';

export interface GeneratedArchive {
  file: string;
  messages: number;
}

const SYLLABLES = ['ka', 'lo', 'mi', 're', 'su', 'ta', 'no', 'vi', 'pe', 'da', 'ri', 'ma', 'so', 'te', 'lu', 'ba'];

function vocabulary(n: number, rand: () => number): string[] {
  const words = new Set<string>();
  while (words.size < n) {
    const len = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < len; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** `messages` messages over `conversations` conversations; with `dim`, every message gets a random vector. */
export function generateArchive(
  dir: string,
  opts: { messages: number; conversations?: number; dim?: number; model?: string; seed?: number },
): GeneratedArchive {
  const file = path.join(dir, 'msgbrowse.sqlite');
  const db = createArchive(file);
  const rand = mulberry32(opts.seed ?? 7);
  const vocab = vocabulary(20000, rand);
  const word = zipfSampler(vocab.length, 1.07, rand);
  const writer = new ArchiveWriter(db);
  const convs = opts.conversations ?? 20;
  const per = Math.ceil(opts.messages / convs);
  let written = 0;
  const start = Date.UTC(2024, 0, 1) / 1000;
  for (let c = 0; c < convs && written < opts.messages; c++) {
    const batch: MessageInput[] = [];
    for (let i = 0; i < per && written + batch.length < opts.messages; i++) {
      const n = 3 + Math.floor(rand() * 12);
      const words: string[] = [];
      for (let j = 0; j < n; j++) words.push(vocab[word()]);
      batch.push({ ts: formatTs(start + written * 60 + i * 60), sender: `person${c % 7}`, body: words.join(' ') });
    }
    const imported = writer.importConversation('signal', `Conversation ${c}`, batch);
    if (opts.dim) {
      const model = opts.model ?? 'test-embed';
      const put = db.transaction(() => {
        for (const m of imported.messages) {
          const v = new Float32Array(opts.dim as number);
          for (let d = 0; d < v.length; d++) v[d] = rand() * 2 - 1;
          writer.putEmbedding(m.hash, model, v);
        }
      });
      put();
    }
    written += batch.length;
  }
  db.close();
  return { file, messages: written };
}
