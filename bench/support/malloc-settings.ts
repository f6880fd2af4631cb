/**
 * glibc's allocator settings a bench ran with, from its environment (glibc reads them when a process
 * starts; a spawned node inherits them). Recorded beside the figures: the arena count changes how
 * the statement's worker and the searches' thread share the allocator (docs/directory.md).
 */
export function glibcMallocSettings(env: NodeJS.ProcessEnv = process.env): { mmapThreshold: string | null; arenaMax: string | null } {
  return { mmapThreshold: env.MALLOC_MMAP_THRESHOLD_ ?? null, arenaMax: env.MALLOC_ARENA_MAX ?? null };
}
