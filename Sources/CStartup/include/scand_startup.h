#ifndef SCAND_STARTUP_H
#define SCAND_STARTUP_H

/// `scand run` takes SIGTERM, SIGINT and SIGHUP from its first instruction: a constructor notes
/// them until the daemon's own signal handling listens (then it asks these once).

/// The first stop signal (SIGTERM or SIGINT) that arrived before, or 0.
int scand_early_stop(void);

/// Whether a SIGHUP arrived before (the config is read after, so it changes nothing).
int scand_early_hangup(void);

/// The commit scand was built from (`git describe`, from scripts/stamp-version.sh or a
/// `git archive` tarball), or "" when unknown.
const char *scand_build_commit(void);

#endif
