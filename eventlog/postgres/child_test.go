package postgres

// childEnv makes the test binary a hook-like child process (see TestKill9).
const childEnv = "HOOK_LOOP_PG_CHILD"

