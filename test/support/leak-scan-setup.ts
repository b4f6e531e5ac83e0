// vitest's setup file for every test file: when the leak scan is on (test/support/leak-scan.ts, the
// globalSetup, says where), this process records what the scan reads and traces its museums, from before
// the file's first hook to after its last.
import { afterAll, inject } from 'vitest';
import { finishRecording, startRecordedTracing, startRecording } from './leak-recording.ts';

const dir = inject('leakScanDir');
if (dir) {
  startRecording(dir);
  await startRecordedTracing();
  // Registered first, so it runs last: after the file's own hooks have closed its museums and servers.
  afterAll(finishRecording);
}
