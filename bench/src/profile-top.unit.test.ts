import { describe, expect, it } from 'vitest';
import { placeOf, selfTimes } from './profile-top';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });

describe('a CPU profile summed up by self time', () => {
  it('adds each sample time to the function it was taken in, and ranks them', () => {
    const { totalMs, functions, places } = selfTimes({
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('parse', 'file:///work/main/node_modules/pg-protocol/dist/parser.js') },
        { id: 3, callFrame: frame('toRecorded', 'file:///work/main/platform/src/event-store/read.ts') },
        { id: 4, callFrame: frame('parse', 'file:///work/main/node_modules/pg-protocol/dist/parser.js') },
      ],
      samples: [2, 3, 2, 4, 1],
      timeDeltas: [1000, 2000, 3000, 1000, 0],
    });
    expect(totalMs).toBe(7);
    expect(functions.map(({ name, ms }) => [name, ms])).toEqual([
      ['parse pg-protocol/dist/parser.js:10', 5],
      ['toRecorded /work/main/platform/src/event-store/read.ts:10', 2],
    ]);
    expect(places.map(({ name, share }) => [name, share])).toEqual([
      ['pg-protocol', 5 / 7],
      ['platform', 2 / 7],
    ]);
  });

  it('tells where code lives: a package, a workspace of ours, node, or a VM state', () => {
    expect(placeOf('file:///w/node_modules/@fastify/compress/index.js', 'f')).toBe('@fastify/compress');
    expect(placeOf('file:///w/node_modules/a/node_modules/b/x.js', 'f')).toBe('b');
    expect(placeOf('node:internal/streams/writable', 'f')).toBe('node');
    expect(placeOf('file:///work/main/command-service/src/app.ts', 'f')).toBe('command-service');
    expect(placeOf('', '(garbage collector)')).toBe('(garbage collector)');
  });
});
