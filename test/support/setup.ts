/**
 * Preloaded before every test file (bunfig.toml [test].preload). End-to-end tests start real
 * servers, SQLite files, SMTP servers and browsers on a shared 2-core machine: give each test
 * 30 s of real time. No test waits on wall-clock time for an outcome (they poll with deadlines
 * or advance the test clock); this is only a ceiling against hangs.
 */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(30_000);
