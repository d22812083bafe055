#include <signal.h>
#include <string.h>
#include "scand_startup.h"

static volatile sig_atomic_t early_stop = 0;
static volatile sig_atomic_t early_hangup = 0;

static void note(int signal) {
    if (signal == SIGHUP) early_hangup = 1;
    else if (!early_stop) early_stop = signal;
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

int scand_early_stop(void) { return early_stop; }
int scand_early_hangup(void) { return early_hangup; }
