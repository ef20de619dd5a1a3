import { readFileSync } from 'node:fs';

/**
 * `npx tsx bench/src/profile-top.ts FILE.cpuprofile [N]`: where a CPU profile's time went, by
 * self time: the N functions that spent most of it themselves, and the same time summed by where
 * their code lives (a package of node_modules, a workspace of ours, node itself, idle, GC).
 */
type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
};
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** Where a function's code lives, from its script's URL. */
export function placeOf(url: string, functionName: string) {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(url);
  if (modules) return modules[1] as string;
  const ours = /\/work\/[^/]+\/([^/]+)\//.exec(url) ?? /\/([^/]+)\/src\//.exec(url);
  return ours ? (ours[1] as string) : url;
}

export function selfTimes(profile: Profile) {
  const byNode = new Map<number, number>();
  profile.samples.forEach((node, index) => {
    byNode.set(node, (byNode.get(node) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const micros = byNode.get(node.id) ?? 0;
    if (micros === 0) continue;
    total += micros;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '');
    const name = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + micros);
    const place = placeOf(url, functionName);
    places.set(place, (places.get(place) ?? 0) + micros);
  }
  const ranked = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).map(([name, micros]) => ({ name, ms: micros / 1000, share: micros / total }));
  return { totalMs: total / 1000, functions: ranked(functions), places: ranked(places) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, count = '25'] = process.argv.slice(2);
  if (!file) {
    console.error('Usage: tsx bench/src/profile-top.ts FILE.cpuprofile [N]');
    process.exit(2);
  }
  const { totalMs, functions, places } = selfTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const line = ({ name, ms, share }: { name: string; ms: number; share: number }) =>
    `${(share * 100).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms  ${name}`;
  console.log(`${file}: ${(totalMs / 1000).toFixed(1)} s sampled\n\nSelf time by function:`);
  for (const entry of functions.slice(0, Number(count))) console.log(line(entry));
  console.log('\nSelf time by where the code lives:');
  for (const entry of places.slice(0, 20)) console.log(line(entry));
}
