import { chatgptResearchSuite } from './chatgpt-research.suite.js';
import { sharedSystem } from './shared-system.js';
import { trovellaSessionSuite } from './trovella-session.suite.js';

// Research clients through the whole system, each as its reference describes it: a client
// written against Trovella's tool reference, and ChatGPT's deep research (search and fetch). The
// system runs behind an https public URL, as ChatGPT requires: every url is a permalink.

const PUBLIC_URL = 'https://quarry.example';
const system = sharedSystem({ QUARRY_PUBLIC_URL: PUBLIC_URL });
trovellaSessionSuite(system);
chatgptResearchSuite(system, PUBLIC_URL);
