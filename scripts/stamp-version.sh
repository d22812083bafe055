#!/bin/sh
# Writes Sources/CStartup/scand_commit.h with the commit being built (`git describe`), for
# `scand --version`. Run before `swift build` (the Makefile, build-deb.sh and demo.sh do). The
# file changes only when the commit does, so builds stay incremental. Outside a git clone (a
# `git archive` tarball carries its commit in scand_archive.h) it does nothing.
set -eu
cd "$(dirname "$0")/.."
header=Sources/CStartup/scand_commit.h
commit=$(git describe --always --dirty --abbrev=12 2>/dev/null) || exit 0
line="#define SCAND_COMMIT \"$commit\""
if [ "$(cat "$header" 2>/dev/null)" != "$line" ]; then
    new=0; [ -f "$header" ] || new=1
    printf '%s\n' "$line" > "$header"
    # A header that appears is not yet a dependency of startup.c: make it rebuild.
    [ "$new" = 0 ] || touch Sources/CStartup/startup.c
fi
