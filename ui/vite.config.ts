import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compressAssets } from './compress-assets.ts';
import { routePreload } from './route-preload.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = 'http://localhost:3000';

export default defineConfig({
  root,
  plugins: [react({ jsxImportSource: '@emotion/react' }), routePreload(), compressAssets()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      // Small chunks shared by a few screens are copied into each instead of fetched on their
      // own: a list screen asked for 27 scripts, a round trip after round trip on a slow phone's
      // network, and now asks for about 10.
      preserveEntrySignatures: false,
      output: { codeSplitting: { experimentalInlineCommonChunks: { maxSize: 6 * 1024 } } },
    },
  },
  server: {
    proxy: {
      '/api': { target: api, changeOrigin: true },
      '/auth': { target: api, changeOrigin: true },
    },
  },
});
