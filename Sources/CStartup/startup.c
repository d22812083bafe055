#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include "scand_startup.h"
#include "scand_archive.h"
/* scripts/stamp-version.sh writes scand_commit.h (not in git) before a build from a clone; a
   tarball made by `git archive` carries its commit in scand_archive.h (export-subst). */
#if __has_include("scand_commit.h")
#include "scand_commit.h"
#endif

/* Written in a signal handler, read by the daemon's threads: lock-free atomics, which are
   async-signal-safe and which ThreadSanitizer sees as such. */
static atomic_int early_stop = 0;
static atomic_int early_hangup = 0;

static void note(int signal) {
    if (signal == SIGHUP) {
        atomic_store_explicit(&early_hangup, 1, memory_order_relaxed);
    } else {
        int none = 0;
        atomic_compare_exchange_strong_explicit(&early_stop, &none, signal, memory_order_relaxed, memory_order_relaxed);
    }
}

/* Runs before Swift's own start-up, in `scand run` only (other subcommands keep the default
   actions): the signals are noted, never acted on, until the service group's handling replaces
   these handlers. */
__attribute__((constructor)) static void scand_take_signals(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 2 || strcmp(argv[1], "run") != 0) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = note;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, 0);
    sigaction(SIGINT, &action, 0);
    sigaction(SIGHUP, &action, 0);
}

int scand_early_stop(void) { return atomic_load_explicit(&early_stop, memory_order_relaxed); }
int scand_early_hangup(void) { return atomic_load_explicit(&early_hangup, memory_order_relaxed); }

const char *scand_build_commit(void) {
#ifdef SCAND_COMMIT
    return SCAND_COMMIT;
#else
    /* "$Format:...$" unless `git archive` replaced it. */
    return SCAND_ARCHIVE_COMMIT[0] == '$' ? "" : SCAND_ARCHIVE_COMMIT;
#endif
}
