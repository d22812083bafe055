#!/usr/bin/env bash
# The test suite under AddressSanitizer and ThreadSanitizer, each in its own build folder.
# ASan: serial, leak reports off (at exit they list Foundation.Process's and XCTest's own
# allocations) and no quarantine (the suite's RSS bounds would otherwise count freed memory).
# TSan: without the suites that start processes (TSan's runtime aborts in fork of a
# multithreaded process: tsan_rtl.cpp "!thr->slot"), i.e. CLITests and TOMLDifferentialTests.
set -euo pipefail
cd "$(dirname "$0")/.."
ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=0 swift test --scratch-path .build-asan --sanitize=address --no-parallel
swift test --scratch-path .build-tsan --sanitize=thread --skip CLITests --skip TOMLDifferentialTests
