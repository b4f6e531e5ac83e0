import { it } from 'vitest';
import { useMuseum } from './support/use-museum.ts';

const museum = useMuseum();
it('micro', async () => {
  const N = 3000;
  for (const path of ['/museum-hours?limit=5', '/health/live']) {
    for (let i = 0; i < 300; i++) await museum.rest('GET', path);
    const t = performance.now();
    for (let i = 0; i < N; i++) await museum.rest('GET', path);
    console.log('MICRO', path, (((performance.now() - t) / N) * 1000).toFixed(1), 'us/req');
  }
  const q = '{ museumHours(limit: 5) { date timeOpen timeClose } }';
  for (let i = 0; i < 300; i++) await museum.graphql(q, {});
  const t = performance.now();
  for (let i = 0; i < N; i++) await museum.graphql(q, {});
  console.log('MICRO graphql', (((performance.now() - t) / N) * 1000).toFixed(1), 'us/req');
});
