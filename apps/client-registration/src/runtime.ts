// Imported first by main.ts: a service on an unsupported Node.js stops with one line saying so.
import { exitOnUnsupportedNode } from '@bank/shared/runtime';

exitOnUnsupportedNode();
