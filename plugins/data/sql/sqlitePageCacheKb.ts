/**
 * Page cache of every SQLite connection the data plugin opens (the writer, the main thread's
 * reader, each read worker), in KiB: SQLite's own default. better-sqlite3 builds SQLite with 16 MB
 * per connection, which each connection filled with the pages of its scans; the file's pages stay
 * in the system's cache, and SQLite drops a connection's cache whenever another connection has
 * written (in WAL mode, at the start of its next read), so under writes a large cache held memory
 * rather than saving reads. The mix measured the same throughput with 2 MB and a peak about 20 MB
 * lower (bench/README.md, The mix, Memory).
 */
export const SQLITE_PAGE_CACHE_KB = 2000;
